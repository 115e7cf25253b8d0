package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
)

// Environment variables read besides the AWS SDK's own.
const (
	EnvTablePrefix = "RYNO_TABLE_PREFIX"
	// The SDK reads these itself; ryno reads them too, to know whether the endpoint
	// is DynamoDB Local.
	envEndpointDynamoDB = "AWS_ENDPOINT_URL_DYNAMODB"
	envEndpoint         = "AWS_ENDPOINT_URL"
)

// Defaults of the flags.
const (
	defaultTimeout         = 10 * time.Minute
	defaultTransferTimeout = 24 * time.Hour
	defaultBillingMode     = "on-demand"
)

const reportUsage = "print what the run cost on standard error: requests, retries, capacity"

// settings are the parsed flags of a command.
type settings struct {
	prefix   string
	endpoint string
	region   string
	timeout  time.Duration

	billingMode   string
	readCapacity  int64
	writeCapacity int64

	deleteAllData bool
	repair        bool
	segments      int
	report        bool

	scope string
	types stringList

	pitr               bool
	deletionProtection bool
	streams            bool
	sse                string
	kmsKey             string
	updateExisting     bool

	format     string
	account    string
	migrations bool

	in, out      string
	existing     string
	skipBadLines bool
	exclusive    bool
	resume       string
}

// flagSet returns the flags of cmd, bound to s.
func flagSet(cmd *command, s *settings) *flag.FlagSet {
	fs := flag.NewFlagSet("ryno "+cmd.path(), flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and help are printed by the caller
	fs.StringVar(&s.prefix, "prefix", "", "table prefix, such as myapp for myapp_entities_master; required (env "+EnvTablePrefix+")")
	if cmd.offline == nil {
		fs.StringVar(&s.endpoint, "endpoint", "", "DynamoDB endpoint, an http or https URL such as http://localhost:8000 for DynamoDB Local (env "+envEndpointDynamoDB+")")
		fs.StringVar(&s.region, "region", "", "AWS region (env AWS_REGION; us-east-1 when an endpoint is set and no region is)")
		timeout := defaultTimeout
		if cmd.path() == "export" || cmd.path() == "import" {
			timeout = defaultTransferTimeout // a store of millions of entities takes hours
		}
		fs.DurationVar(&s.timeout, "timeout", timeout, "give up after this long")
	}
	if cmd.billing {
		fs.StringVar(&s.billingMode, "billing-mode", defaultBillingMode, "billing of the tables and GSIs created: on-demand or provisioned")
		fs.Int64Var(&s.readCapacity, "read-capacity", 0, "read capacity units of each table and GSI; required with provisioned billing")
		fs.Int64Var(&s.writeCapacity, "write-capacity", 0, "write capacity units of each table and GSI; required with provisioned billing")
	}
	if cmd.settings {
		s.settingsFlags(fs, cmd.offline == nil)
	}
	switch cmd.path() {
	case "migrate export":
		fs.StringVar(&s.format, "format", "", "`format` of the output: "+strings.Join(exportFormats, ", ")+"; required")
	case "iam-policy":
		fs.StringVar(&s.account, "account", "", "AWS account `ID` in the ARNs (default *, any)")
		fs.StringVar(&s.region, "region", "", "AWS `region` in the ARNs (default *, any)")
		fs.BoolVar(&s.migrations, "migrations", false, "the policy of ryno migrate, check and reindex instead of the application's")
	case "migrate down":
		fs.BoolVar(&s.deleteAllData, "delete-all-data", false, "confirm that the tables and every item in them are deleted")
	case "check":
		fs.BoolVar(&s.repair, "repair", false, "delete the orphans found")
		fs.IntVar(&s.segments, "segments", 1, "scan each table in this many parallel segments, for large tables")
		fs.BoolVar(&s.report, "report", false, reportUsage)
	case "export", "import":
		s.transferFlags(fs, cmd.path())
	case "reindex":
		fs.StringVar(&s.scope, "scope", "", "`scope` of the entities to reindex; required")
		fs.Var(&s.types, "type", "entity `type` to reindex; repeat for several (default: every type with an index)")
		fs.BoolVar(&s.report, "report", false, reportUsage)
	}
	return fs
}

// parse parses the flags of cmd and applies the environment fallbacks. It returns
// flag.ErrHelp when help was asked for.
func (r *runner) parse(cmd *command, args []string) (*settings, error) {
	s := &settings{}
	fs := flagSet(cmd, s)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, cmd.usage(err.Error())
	}
	if fs.NArg() > 0 {
		return nil, cmd.usage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if s.prefix == "" {
		s.prefix = r.getenv(EnvTablePrefix)
	}
	if s.prefix == "" {
		return nil, cmd.usage("missing table prefix: set --prefix or " + EnvTablePrefix)
	}
	if err := schema.ValidatePrefix(s.prefix); err != nil {
		var ve *schema.ValidationError
		if errors.As(err, &ve) {
			return nil, cmd.usage(fmt.Sprintf("invalid table prefix %q: %s", s.prefix, ve.Reason))
		}
		return nil, cmd.usage(err.Error())
	}
	if cmd.offline == nil && s.timeout <= 0 {
		return nil, cmd.usage("--timeout must be positive")
	}
	if cmd.offline == nil {
		if endpoint, source := r.endpoint(s); endpoint != "" && !validEndpoint(endpoint) {
			return nil, cmd.usage(fmt.Sprintf("%s must be an http or https URL with a host, such as http://localhost:8000, not %q", source, endpoint))
		}
	}
	if cmd.billing {
		if _, err := s.billing(); err != nil {
			return nil, cmd.usage(err.Error())
		}
	}
	if cmd.settings {
		if _, err := s.encryption(); err != nil {
			return nil, cmd.usage(err.Error())
		}
	}
	return s, nil
}

// settingsFlags adds the flags of the tables' settings to fs; existing adds the one
// that applies them to existing tables.
func (s *settings) settingsFlags(fs *flag.FlagSet, existing bool) {
	fs.BoolVar(&s.pitr, "pitr", false, "turn on point-in-time recovery (not supported by DynamoDB Local)")
	fs.BoolVar(&s.deletionProtection, "deletion-protection", false, "turn on deletion protection")
	fs.BoolVar(&s.streams, "streams", false, "turn on a stream of new and old images on each table, for change consumers")
	fs.StringVar(&s.sse, "sse", "aws-owned", "server-side encryption: aws-owned, or kms for a KMS key")
	fs.StringVar(&s.kmsKey, "kms-key", "", "`ARN` of the customer managed KMS key, with --sse kms (default: the AWS managed key aws/dynamodb)")
	if existing {
		fs.BoolVar(&s.updateExisting, "update-existing", false, "also apply --pitr, --deletion-protection, --streams and --sse to existing tables")
	}
}

// encryption returns the encryption the flags ask for.
func (s *settings) encryption() (migrations.Encryption, error) {
	var enc migrations.Encryption
	switch strings.ToLower(s.sse) {
	case "", "aws-owned":
		if s.kmsKey != "" {
			return enc, errors.New("--kms-key needs --sse kms")
		}
		return enc, nil
	case "kms":
		enc = migrations.Encryption{Type: migrations.EncryptionKMS, KMSKey: s.kmsKey}
		var ve *schema.ValidationError
		if err := enc.Validate(); errors.As(err, &ve) {
			return enc, fmt.Errorf("--kms-key %s", ve.Reason)
		}
		return enc, nil
	}
	return enc, fmt.Errorf("--sse must be aws-owned or kms, not %q", s.sse)
}

// options returns the migrations options the flags ask for; parse validated them.
func (s *settings) options() migrations.Options {
	billing, _ := s.billing()
	enc, _ := s.encryption()
	return migrations.Options{
		TablePrefix:         s.prefix,
		Billing:             billing,
		PointInTimeRecovery: s.pitr,
		DeletionProtection:  s.deletionProtection,
		Streams:             s.streams,
		Encryption:          enc,
		UpdateExisting:      s.updateExisting,
	}
}

// billing returns the billing the flags ask for.
func (s *settings) billing() (schema.Billing, error) {
	switch strings.ToLower(s.billingMode) {
	case "", "on-demand", "pay_per_request":
		if s.readCapacity != 0 || s.writeCapacity != 0 {
			return schema.Billing{}, errors.New("--read-capacity and --write-capacity need --billing-mode provisioned")
		}
		return schema.Billing{}, nil
	case "provisioned":
		if s.readCapacity < 1 || s.writeCapacity < 1 {
			return schema.Billing{}, errors.New("--billing-mode provisioned needs --read-capacity and --write-capacity of at least 1")
		}
		return schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: s.readCapacity, WriteCapacity: s.writeCapacity}, nil
	}
	return schema.Billing{}, fmt.Errorf("--billing-mode must be on-demand or provisioned, not %q", s.billingMode)
}

// printFlags lists the flags of fs as "--name type  usage (default ...)".
func printFlags(w io.Writer, fs *flag.FlagSet) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		if typ == "" && !isBool(f) {
			typ = "value"
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(tw, "  --%s %s\t%s\n", f.Name, typ, usage)
	})
	tw.Flush()
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
