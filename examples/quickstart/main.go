// Quickstart provisions a RynoDB store, writes a few entities, updates one, pages
// through a type and deletes one, printing what each step did.
//
//	go run ./examples/quickstart -endpoint http://localhost:8000 -prefix quickstart
//
// Without -endpoint it uses the AWS SDK's configuration: AWS_ENDPOINT_URL_DYNAMODB,
// AWS_REGION and the default credentials chain.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

func main() {
	endpoint := flag.String("endpoint", "", "DynamoDB endpoint URL, such as http://localhost:8000 for DynamoDB Local")
	prefix := flag.String("prefix", "quickstart", "table prefix")
	flag.Parse()
	log.SetFlags(0)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, *endpoint, *prefix); err != nil {
		log.Fatalf("quickstart: %v", err)
	}
}

func run(ctx context.Context, endpoint, prefix string) error {
	api, err := newDynamoDB(ctx, endpoint)
	if err != nil {
		return err
	}
	if err := migrate(ctx, api, prefix); err != nil {
		return err
	}
	db, err := ryno.New(api, ryno.Options{TablePrefix: prefix})
	if err != nil {
		return err
	}
	steps := []struct {
		title string
		run   func(context.Context, *ryno.Client) error
	}{
		{"Start from a clean slate", cleanSlate},
		{"Create three people", createPeople},
		{"Create one of them again", createAgain},
		{"Update Grace", updateGrace},
		{"Page through the people, two at a time, newest first", pagePeople},
		{"Delete Alan", deleteAlan},
		{"Read everyone back in one batch", batchGet},
	}
	for i, s := range steps {
		fmt.Printf("\n%d. %s\n", i+2, s.title)
		if err := s.run(ctx, db); err != nil {
			return fmt.Errorf("%s: %w", strings.ToLower(s.title), err)
		}
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

var (
	ada   = ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	grace = ryno.Key{Scope: "acme", Type: "person", ID: "grace"}
	alan  = ryno.Key{Scope: "acme", Type: "person", ID: "alan"}
)

func cleanSlate(ctx context.Context, db *ryno.Client) error {
	for _, k := range []ryno.Key{ada, grace, alan} {
		if err := db.Delete(ctx, k); err != nil {
			return err
		}
	}
	fmt.Println("   deleted acme/person ada, grace and alan if they existed (Delete is idempotent)")
	return nil
}

func createPeople(ctx context.Context, db *ryno.Client) error {
	people := []*ryno.Entity{
		{Key: ada, Attributes: map[string]any{"name": "Ada Lovelace", "born": 1815}},
		{Key: grace, Attributes: map[string]any{"name": "Grace Hopper", "born": 1906}},
		{Key: alan, Attributes: map[string]any{"name": "Alan Turing", "born": 1912}},
	}
	for _, p := range people {
		e, err := db.Create(ctx, p)
		if err != nil {
			return err
		}
		fmt.Printf("   created %-6s %-13s created %s\n", e.ID, e.Attributes["name"], stamp(e.Created))
		time.Sleep(5 * time.Millisecond) // distinct Updated times make the paging order visible
	}
	return nil
}

func createAgain(ctx context.Context, db *ryno.Client) error {
	_, err := db.Create(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"name": "someone else"}})
	if !errors.Is(err, ryno.ErrConflict) {
		return fmt.Errorf("want ErrConflict, got %v", err)
	}
	fmt.Printf("   refused: %v\n", err)
	return nil
}

func updateGrace(ctx context.Context, db *ryno.Client) error {
	e, err := db.Get(ctx, grace)
	if err != nil {
		return err
	}
	e.Attributes["rank"] = "Rear Admiral"
	updated, err := db.Update(ctx, e)
	if err != nil {
		return err
	}
	fmt.Printf("   read grace, added rank, wrote her back with one conditional put\n")
	fmt.Printf("   created %s (kept), updated %s (moved)\n", stamp(updated.Created), stamp(updated.Updated))
	return nil
}

func pagePeople(ctx context.Context, db *ryno.Client) error {
	p := ryno.PageOptions{Limit: 2, Descending: true}
	for n := 1; ; n++ {
		page, err := db.ListByType(ctx, "acme", "person", p)
		if err != nil {
			return err
		}
		var ids []string
		for _, e := range page.Items {
			ids = append(ids, fmt.Sprintf("%s (updated %s)", e.ID, stamp(e.Updated)))
		}
		fmt.Printf("   page %d: %s\n", n, strings.Join(ids, ", "))
		if page.Cursor == "" {
			return nil
		}
		p.Cursor = page.Cursor
	}
}

func deleteAlan(ctx context.Context, db *ryno.Client) error {
	if err := db.Delete(ctx, alan); err != nil {
		return err
	}
	_, err := db.Get(ctx, alan)
	if !errors.Is(err, ryno.ErrNotFound) {
		return fmt.Errorf("want ErrNotFound, got %v", err)
	}
	fmt.Printf("   deleted alan; reading him now gives: %v\n", err)
	return nil
}

func batchGet(ctx context.Context, db *ryno.Client) error {
	keys := []ryno.Key{ada, alan, grace}
	entities, err := db.BatchGet(ctx, keys)
	if err != nil {
		return err
	}
	for i, e := range entities {
		if e == nil {
			fmt.Printf("   %-6s missing\n", keys[i].ID)
			continue
		}
		fmt.Printf("   %-6s %v\n", e.ID, e.Attributes)
	}
	return nil
}

func stamp(t time.Time) string { return t.Format("15:04:05.000") }

func init() {
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: quickstart [-endpoint URL] [-prefix PREFIX]\n")
		flag.PrintDefaults()
	}
}
