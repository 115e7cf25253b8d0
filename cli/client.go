package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// For DynamoDB Local, which accepts any credentials and region but keeps separate data
// for each access key and region: the values the test harness uses too.
const (
	localRegion    = "us-east-1"
	localAccessKey = "local"
	localSecretKey = "local"
)

// newClient returns a DynamoDB client configured by the SDK's default chain, the
// --endpoint and --region flags, and the conveniences for DynamoDB Local.
func (r *runner) newClient(ctx context.Context, cmd *command, s *settings) (*dynamodb.Client, error) {
	endpoint, _ := r.endpoint(s)
	local := isLoopback(endpoint)

	var opts []func(*config.LoadOptions) error
	if s.region != "" {
		opts = append(opts, config.WithRegion(s.region))
	}
	if local { // instance credentials are pointless here, and probing for them is slow
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		if endpoint == "" {
			return nil, cmd.usage("missing AWS region: set --region or AWS_REGION")
		}
		cfg.Region = localRegion
	}
	if local && !hasCredentials(ctx, cfg) {
		cfg.Credentials = credentials.NewStaticCredentialsProvider(localAccessKey, localSecretKey, "")
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// The endpoint this run resolved, from the flag or the environment, not left
		// to the SDK: with AWS_IGNORE_CONFIGURED_ENDPOINT_URLS it would drop the
		// variables and send a run set up for a local endpoint to AWS.
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		// DynamoDB Local sends no CRC32 header with error responses, and the SDK then
		// logs a checksum warning for each (aws/aws-sdk-go-v2#3545).
		o.DisableValidateResponseChecksum = local
	}), nil
}

// endpoint returns the endpoint the client uses, from --endpoint or the
// environment, and where it comes from: the flag or the variable's name. It is
// empty when none is set: the SDK then finds the region's.
func (r *runner) endpoint(s *settings) (endpoint, source string) {
	if s.endpoint != "" {
		return s.endpoint, "--endpoint"
	}
	for _, env := range []string{envEndpointDynamoDB, envEndpoint} {
		if v := r.getenv(env); v != "" {
			return v, env
		}
	}
	return "", ""
}

// validEndpoint reports whether endpoint is an http or https URL with a host. The
// SDK takes anything, and a request to a malformed endpoint fails only after its
// retries, seconds later.
func validEndpoint(endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Opaque == "" && u.Hostname() != ""
}

func hasCredentials(ctx context.Context, cfg aws.Config) bool {
	if cfg.Credentials == nil {
		return false
	}
	_, err := cfg.Credentials.Retrieve(ctx)
	return err == nil
}

// isLoopback reports whether endpoint is a URL whose host is localhost or a loopback
// address.
func isLoopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
