package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

const mainHelp = `ryno provisions, checks, reindexes, exports and imports the DynamoDB tables of a RynoDB store.

Usage:
  ryno migrate <command> [flags]
  ryno check [--repair] [flags]
  ryno reindex --scope SCOPE [--type TYPE]... [flags]
  ryno export [--out FILE] [--scope SCOPE [--type TYPE]...] [flags]
  ryno import --in FILE [--existing keep|overwrite|newer] [--resume FILE] [flags]
  ryno migrate export --format cloudformation|terraform|json [flags]
  ryno iam-policy [--account ID --region NAME] [--migrations] [flags]
  ryno version
  ryno help [migrate <command> | check | reindex | export | import | iam-policy]

Migrate commands:
%s
Other commands:
%s
Common flags:
  --prefix NAME   table prefix; required (env RYNO_TABLE_PREFIX)
  --endpoint URL  DynamoDB endpoint, an http or https URL such as http://localhost:8000 (env AWS_ENDPOINT_URL_DYNAMODB)
  --region NAME   AWS region (env AWS_REGION)
  --timeout DUR   give up after this long (default 10m)

Run 'ryno help <command>' or 'ryno help migrate <command>' for all their flags.
` + connectionHelp + migrateExitHelp

const connectionHelp = `
Credentials and region come from the AWS SDK's default chain: environment variables,
shared config and credentials files, SSO, container and instance roles. When an
endpoint is set and no region is, the region is us-east-1. For an endpoint on
localhost, 127.0.0.1 or ::1 (DynamoDB Local), when the chain finds no credentials,
ryno uses access key "local" and secret "local". DynamoDB Local keeps separate tables
for each access key and region: other tools must use the same ones to see them.
`

const migrateExitHelp = `
Exit status: 0 on success; 1 on failure, including drift that up cannot repair
(status and plan too); 2 on a wrong or incomplete command line.
`

// offlineExitHelp ends the help of the commands that connect to nothing.
const offlineExitHelp = `
Exit status: 0 on success; 2 on a wrong or incomplete command line.
`

func (r *runner) help(args []string) error {
	switch {
	case len(args) == 0, len(args) == 1 && args[0] == "migrate":
		r.printMainHelp(r.stdout)
		return nil
	case len(args) == 1 && findOtherCommand(args[0]) != nil:
		r.printCommandHelp(findOtherCommand(args[0]))
		return nil
	case len(args) == 2 && args[0] == "migrate":
		if cmd := findMigrateCommand(args[1]); cmd != nil {
			r.printCommandHelp(cmd)
			return nil
		}
	}
	return &usageError{msg: fmt.Sprintf("no help for %q", strings.Join(args, " "))}
}

// otherCommands are the commands outside the migrate group, in help order.
var otherCommands = []*command{checkCommand, reindexCommand, exportCommand, importCommand, iamPolicyCommand}

func findOtherCommand(name string) *command {
	for _, c := range otherCommands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (r *runner) printMainHelp(w io.Writer) {
	fmt.Fprintf(w, mainHelp, commandList(commands), commandList(otherCommands))
}

// commandList lists cmds with their summaries, aligned.
func commandList(cmds []*command) string {
	var list strings.Builder
	tw := tabwriter.NewWriter(&list, 0, 0, 2, ' ', 0)
	for _, c := range cmds {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	return list.String()
}

func (r *runner) printCommandHelp(cmd *command) {
	fmt.Fprintf(r.stdout, "Usage: ryno %s [flags]\n\n%s\n\nFlags:\n", cmd.path(), cmd.help)
	printFlags(r.stdout, flagSet(cmd, &settings{}))
	if cmd.offline != nil {
		fmt.Fprint(r.stdout, offlineExitHelp)
		return
	}
	fmt.Fprint(r.stdout, connectionHelp)
	if cmd.group == "migrate" {
		fmt.Fprint(r.stdout, migrateExitHelp)
	}
}
