// Quickstart shows the main uses of RynoDB in order, a numbered step each: the
// tables, entities, paging, relationships, an index, a unique value, a version
// conflict, a delete, and what a call cost. examples/tracker goes further.
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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

var (
	ada     = ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	grace   = ryno.Key{Scope: "acme", Type: "person", ID: "grace"}
	article = ryno.Key{Scope: "acme", Type: "article", ID: "engine"}
	byEmail = ryno.ScopedIndex{Scope: "acme", Index: "email"}
)

// emailIndex finds people by e-mail address, which no two may share. The store
// keeps its entries in step with every write.
var emailIndex = ryno.Index{Type: "person", Name: "email", Unique: true, Map: func(e *ryno.Entity, emit func(indexing.Value)) {
	if email, ok := e.Attributes["email"].(string); ok {
		emit(indexing.String(email))
	}
}}

func main() {
	endpoint := flag.String("endpoint", "", "DynamoDB endpoint, such as http://localhost:8000 for DynamoDB Local")
	prefix := flag.String("prefix", "quickstart", "table prefix")
	flag.Parse()
	log.SetFlags(0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := dynamodb.NewFromConfig(must(config.LoadDefaultConfig(ctx)), func(o *dynamodb.Options) {
		if *endpoint != "" {
			o.BaseEndpoint = aws.String(*endpoint)
			o.DisableValidateResponseChecksum = true // DynamoDB Local's errors carry no CRC32 (aws/aws-sdk-go-v2#3545)
		}
	})

	step(1, "Create the tables, as `ryno migrate up` does")
	provider := must(migrations.NewProvider(api, migrations.Options{TablePrefix: *prefix}))
	result := must(provider.Up(ctx))
	for _, a := range result.Actions {
		fmt.Println("  ", a)
	}
	if !result.Changed() {
		fmt.Println("   the tables are up to date")
	}
	var last ryno.CallReport // OnCall receives the report of each call as it returns
	db := must(ryno.New(api, ryno.Options{TablePrefix: *prefix, Indexes: []ryno.Index{emailIndex},
		OnCall: func(_ context.Context, r ryno.CallReport) { last = r }}))
	for _, k := range []ryno.Key{ada, grace, article} { // what an earlier run left
		check(db.Delete(ctx, k)) // deleting a missing entity succeeds
	}

	step(2, "Create entities; creating one again is refused")
	for _, e := range []*ryno.Entity{
		{Key: ada, Attributes: map[string]any{"name": "Ada Lovelace", "email": "ada@acme.example"}},
		{Key: grace, Attributes: map[string]any{"name": "Grace Hopper", "email": "grace@acme.example"}},
		{Key: article, Attributes: map[string]any{"title": "Notes on the Analytical Engine"}},
	} {
		fmt.Printf("   %s %s: version %d\n", e.Type, e.ID, must(db.Create(ctx, e)).Version)
	}
	_, err := db.Create(ctx, &ryno.Entity{Key: ada})
	fmt.Printf("   ada again: errors.Is(err, ryno.ErrExists) %t: %v\n", errors.Is(err, ryno.ErrExists), err)

	step(3, "Get one")
	e := must(db.Get(ctx, ada))
	fmt.Printf("   %s: %v, version %d\n", e.ID, e.Attributes, e.Version)

	step(4, "Page through a type, one entity a page, newest first")
	for p := (ryno.PageOptions{Limit: 1, Descending: true}); ; {
		page := must(db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, p))
		fmt.Printf("   %v, a cursor to go on: %t\n", ids(page.Items), page.Cursor != "")
		if p.Cursor = page.Cursor; p.Cursor == "" {
			break
		}
	}

	step(5, "Relationships: the article's authors, in order; Ada's articles, looked up in reverse")
	must(db.AddRelationships(ctx, article, "authors", []ryno.Key{ada, grace}))
	fmt.Printf("   authors: %v\n", ids(must(db.RelatedEntities(ctx, article, "authors", ryno.PageOptions{})).Items))
	for _, r := range must(db.ReverseRelationships(ctx, ada, "authors", ryno.PageOptions{})).Items {
		fmt.Printf("   %s %s %s\n", r.Subject.ID, r.Predicate, r.Object.ID)
	}

	step(6, "Query an index")
	found := must(db.QueryIndex(ctx, byEmail, indexing.Equal(indexing.String("grace@acme.example")), ryno.PageOptions{}))
	fmt.Printf("   email = grace@acme.example: %v\n", ids(found.Items))

	step(7, "A unique value: someone else with Grace's e-mail address is refused")
	_, err = db.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "person", ID: "imposter"},
		Attributes: map[string]any{"email": "grace@acme.example"}})
	fmt.Printf("   errors.As(err, *ryno.UniqueError) %t: %v\n", errors.As(err, new(*ryno.UniqueError)), err)
	fmt.Printf("   who holds it: %s\n", must(db.LookupUnique(ctx, byEmail, indexing.String("grace@acme.example"))).ID)

	step(8, "Update the entity read in step 3, then update that copy again: a version conflict")
	e.Attributes["title"] = "Countess of Lovelace"
	fmt.Printf("   written over version %d: now version %d\n", e.Version, must(db.Update(ctx, e)).Version)
	_, err = db.Update(ctx, e) // e still says version 1
	fmt.Printf("   errors.As(err, *ryno.ConflictError) %t: %v\n", errors.As(err, new(*ryno.ConflictError)), err)

	step(9, "Delete Ada: her relationships and index entries go with her")
	check(db.Delete(ctx, ada))
	deleted := last
	fmt.Printf("   authors: %v\n", ids(must(db.RelatedEntities(ctx, article, "authors", ryno.PageOptions{})).Items))
	found = must(db.QueryIndex(ctx, byEmail, indexing.BeginsWith(indexing.String("ada")), ryno.PageOptions{}))
	fmt.Printf("   emails beginning with ada: %v\n", ids(found.Items))

	step(10, "What that Delete cost, as OnCall reported it")
	fmt.Printf("   %d requests %v in %d rounds; capacity:\n", deleted.RequestCount(), deleted.Requests, deleted.Rounds)
	for _, c := range deleted.Capacity {
		fmt.Println("  ", c)
	}
}

func step(n int, title string) { fmt.Printf("\n%d. %s\n", n, title) }

func must[T any](v T, err error) T {
	check(err)
	return v
}

func check(err error) {
	if err != nil {
		log.Fatalf("quickstart: %v", err)
	}
}

func ids(entities []*ryno.Entity) []string {
	ids := make([]string, len(entities))
	for i, e := range entities {
		ids[i] = e.ID
	}
	return ids
}
