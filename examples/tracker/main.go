// Tracker provisions a RynoDB store and walks through it step by step, printing
// what each step did. First entities: it writes a few people, updates one, shows a
// version conflict, counts from concurrent goroutines and pages through them. Then
// relationships: people follow people and write posts, and the program reads,
// changes and deletes those edges. Then indexes: people by email and
// by age, posts by publication time, queried by equality, prefix and range. Last, an
// issue tracker: issues numbered from a sequence, found by a tuple index, starred
// through a set.
//
//	go run ./examples/tracker -endpoint http://localhost:8000 -prefix tracker
//
// Without -endpoint it uses the AWS SDK's configuration: AWS_ENDPOINT_URL_DYNAMODB,
// AWS_REGION and the default credentials chain.
//
// The program also carries the ryno command with its indexes registered, as an
// application would, so that reindex can run its map functions:
//
//	go run ./examples/tracker ryno reindex --endpoint http://localhost:8000 --prefix tracker --scope acme
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/cli"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// step is one numbered part of the walk-through.
type step struct {
	title string
	run   func(context.Context, *ryno.Client) error
}

// steps run in order, after the tables are provisioned. The first one deletes
// whatever an earlier run left, so every run prints the same account.
var steps = []step{
	{"Start from a clean slate", cleanSlate},
	{"Create three people", createPeople},
	{"Create one of them again", createAgain},
	{"Someone else with Grace's e-mail: the unique index refuses", sameEmail},
	{"Update Grace", updateGrace},
	{"Update the copy of Grace read before: a version conflict", staleUpdate},
	{"Read Alan into a Go struct, and as JSON", readAsStruct},
	{"Count Ada's visits from 10 goroutines; give her a title with Modify", countVisits},
	{"Page through the people, two at a time, newest first", pagePeople},
	{"Connect people and posts: Set an entity with its relationship lists", connect},
	{"Read Ada's lists, in list order (#n is an entry's position)", readLists},
	{"Who follows Ada? The reverse index answers", whoFollowsAda},
	{"Grace follows Alan too: AddRelationships appends what is new", graceFollowsAlan},
	{"Ada unfollows Grace: RemoveRelationships", adaUnfollowsGrace},
	{"Ada orders her posts newest first: ReplaceRelationships", reorderPosts},
	{"Read Ada with all her lists in one round: Get with WithRelationships", getWithLists},
	{"Grace likes Ada's first post: the edge and the post's count in one transaction", likeInOneTransaction},
	{"Indexes registered with ryno.New: every write above kept their entries", listIndexes},
	{"Find a person by email: QueryIndex with Equal", findByEmail},
	{"Emails beginning with \"a\": QueryIndexEntries, with the projected names", emailsBeginningWithA},
	{"People aged 30 to 45, youngest first: QueryIndex with Between", agedBetween},
	{"Grace turns 86: Patch moves her entry in the age index", graceBirthday},
	{"Posts published in March 2026, newest first: Between on times, Descending", publishedInMarch},
	{"Delete Alan", deleteAlan},
	{"No edge to or from Alan, and no index entry of his, is left", nothingOfAlanIsLeft},
	{"Read everyone back in one batch", batchGet},
	{"File five issues at once, numbered by the project's sequence: TransactNext", fileIssues},
	{"Open issues of the project, newest first: an inline tuple index (project, status, opened), one Query", openIssuesNewestFirst},
	{"Star an issue from several requests at once: a set", starIssue},
	{"Watch an issue: an ordered set lists its watchers in the order they came", watchIssue},
	{"Delete the project: it owns its issues, which go with it", deleteProject},
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "ryno" {
		os.Exit(rynoCommand(os.Args[2:]))
	}
	endpoint := flag.String("endpoint", "", "DynamoDB endpoint URL, such as http://localhost:8000 for DynamoDB Local")
	prefix := flag.String("prefix", "tracker", "table prefix")
	flag.Parse()
	log.SetFlags(0)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, *endpoint, *prefix); err != nil {
		log.Fatalf("tracker: %v", err)
	}
}

// rynoCommand runs the ryno command with the tracker's indexes, which gives it
// reindex; it returns the exit status.
func rynoCommand(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return cli.Run(ctx, cli.Config{Indexes: indexes, Owns: owns, Sets: []string{stars}, OrderedSets: []string{watchers}}, args, os.Stdout, os.Stderr)
}

func run(ctx context.Context, endpoint, prefix string) error {
	api, err := newDynamoDB(ctx, endpoint)
	if err != nil {
		return err
	}
	if err := migrate(ctx, api, prefix); err != nil {
		return err
	}
	// OnCall receives what each call cost; every step ends with its total.
	var spent costs
	db, err := ryno.New(api, ryno.Options{TablePrefix: prefix, Indexes: indexes, Owns: owns, Sets: []string{stars}, OrderedSets: []string{watchers}, OnCall: spent.add})
	if err != nil {
		return err
	}
	// What a service does at start-up: fail fast on missing or drifted tables.
	if err := db.CheckSchema(ctx); err != nil {
		return err
	}
	fmt.Println("   CheckSchema: the tables and indexes match this version")
	for i, s := range steps {
		fmt.Printf("\n%d. %s\n", i+2, s.title)
		spent.take()
		if err := s.run(ctx, db); err != nil {
			return fmt.Errorf("%s: %w", strings.ToLower(s.title), err)
		}
		fmt.Printf("   (%s)\n", spent.take())
	}
	return nil
}

func newDynamoDB(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			// DynamoDB Local sends no CRC32 header with error responses, which the SDK
			// would report as a checksum mismatch (aws/aws-sdk-go-v2#3545).
			o.DisableValidateResponseChecksum = true
		}
	}), nil
}

func migrate(ctx context.Context, api *dynamodb.Client, prefix string) error {
	fmt.Printf("1. Provision the tables for prefix %q\n", prefix)
	provider, err := migrations.NewProvider(api, migrations.Options{TablePrefix: prefix})
	if err != nil {
		return err
	}
	result, err := provider.Up(ctx)
	if err != nil {
		return err
	}
	if !result.Changed() {
		fmt.Println("   already up to date")
	}
	for _, a := range result.Actions {
		fmt.Printf("   %s\n", a)
	}
	return nil
}

func init() {
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: tracker [-endpoint URL] [-prefix PREFIX]\n       tracker ryno <command> [flags]\n")
		flag.PrintDefaults()
	}
}
