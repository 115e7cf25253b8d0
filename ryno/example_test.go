package ryno_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.opentelemetry.io/otel"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// The tables must exist: `ryno migrate up --prefix myapp` creates them.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{TablePrefix: "myapp"})
	if err != nil {
		log.Fatal(err)
	}

	ada, err := db.Set(ctx, &ryno.Entity{
		Key:        ryno.Key{Scope: "acme", Type: "person", ID: "ada"},
		Attributes: map[string]any{"name": "Ada Lovelace", "born": 1815},
	})
	if err != nil {
		log.Fatal(err)
	}

	got, err := db.Get(ctx, ada.Key)
	if errors.Is(err, ryno.ErrNotFound) {
		fmt.Println("gone already")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Attributes["name"], got.Created)
}

func ExampleClient_ListByType() {
	ctx := context.Background()
	db := connect()
	p := ryno.PageOptions{Limit: 50, Descending: true} // newest first
	for {
		page, err := db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, p)
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range page.Items {
			fmt.Println(e.ID, e.Updated)
		}
		if page.Cursor == "" {
			break
		}
		p.Cursor = page.Cursor // or hand it to a client, to come back later
	}
}

func ExampleClient_AllByType() {
	ctx := context.Background()
	db := connect()
	for e, err := range db.AllByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, ryno.PageOptions{Limit: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.ID)
	}
}

func ExampleClient_Update() {
	ctx := context.Background()
	db := connect()
	k := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}

	// An entity read from the store carries its Version and Created time: writing
	// it back is a single PutItem, conditional on that version.
	e, err := db.Get(ctx, k)
	if err != nil {
		log.Fatal(err)
	}
	e.Attributes["title"] = "Countess of Lovelace"
	_, err = db.Update(ctx, e)
	var conflict *ryno.ConflictError
	switch {
	case errors.As(err, &conflict):
		fmt.Printf("changed by someone else since version %d: read it again\n", conflict.Expected)
	case err != nil:
		log.Fatal(err)
	}
}

// An HTTP handler maps an entity's version to an ETag: If-Match comes back as
// Entity.Version, and a stale one is 412 Precondition Failed.
func ExampleClient_Update_ifMatch() {
	ctx := context.Background()
	db := connect()
	var ifMatch int64 = 7 // parsed from the request's If-Match header
	e := &ryno.Entity{
		Key:        ryno.Key{Scope: "acme", Type: "person", ID: "ada"},
		Attributes: map[string]any{"name": "Ada Lovelace"}, // from the request body
		Version:    ifMatch,
	}
	stored, err := db.Update(ctx, e)
	switch {
	case errors.Is(err, ryno.ErrConflict):
		fmt.Println(412) // includes an entity deleted since: it also matches ErrNotFound
	case errors.Is(err, ryno.ErrNotFound):
		fmt.Println(404)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(200, "ETag:", stored.Version)
	}
}

func ExampleClient_Modify() {
	ctx := context.Background()
	db := connect()
	k := ryno.Key{Scope: "acme", Type: "account", ID: "ada"}

	// fn may run more than once: on a conflict Modify reads the account again.
	errInsufficient := errors.New("insufficient funds")
	account, err := db.Modify(ctx, k, func(e *ryno.Entity) error {
		balance, err := e.Attributes["balance"].(json.Number).Int64()
		if err != nil {
			return err
		}
		if balance < 30 {
			return errInsufficient // nothing is written
		}
		e.Attributes["balance"] = balance - 30
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(account.Attributes["balance"], account.Version)
}

func ExampleClient_Patch() {
	ctx := context.Background()
	db := connect()
	k := ryno.Key{Scope: "acme", Type: "stats", ID: "home-page"}

	// One UpdateItem on a type without indexes: concurrent patches lose no addition.
	stats, err := db.Patch(ctx, k, ryno.Patch{
		Add:    map[string]any{"visits": 1},
		Set:    map[string]any{"last_visitor": "ada"},
		Remove: []string{"stale_field"},
	})
	if errors.Is(err, ryno.ErrNotFound) {
		fmt.Println("create it first")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(stats.Attributes["visits"])
}

func ExampleClient_Delete() {
	ctx := context.Background()
	db := connect()
	k := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}

	// Delete only the version the caller saw; without IfVersion, whatever is stored.
	err := db.Delete(ctx, k, ryno.IfVersion(3))
	if errors.Is(err, ryno.ErrConflict) {
		fmt.Println("changed or deleted since version 3")
	} else if err != nil {
		log.Fatal(err)
	}
}

func ExampleClient_BatchGet() {
	ctx := context.Background()
	db := connect()
	keys := []ryno.Key{
		{Scope: "acme", Type: "person", ID: "ada"},
		{Scope: "acme", Type: "person", ID: "nobody"},
	}
	entities, err := db.BatchGet(ctx, keys)
	var batchErr *ryno.BatchError
	if errors.As(err, &batchErr) {
		log.Fatalf("could not read %d keys: %v", len(batchErr.Keys), batchErr.Keys)
	} else if err != nil {
		log.Fatal(err)
	}
	for i, e := range entities {
		if e == nil {
			fmt.Println(keys[i].ID, "does not exist")
		}
	}
}

func ExampleNewEntity() {
	type Account struct {
		Owner   string `dynamodbav:"owner"`
		Balance int64  `dynamodbav:"balance"`
	}
	e, err := ryno.NewEntity(ryno.Key{Scope: "acme", Type: "account", ID: "a1"},
		Account{Owner: "ada", Balance: 9007199254740993})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Attributes["balance"])

	var a Account
	if err := e.Decode(&a); err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Balance)
	// Output:
	// 9007199254740993
	// 9007199254740993
}

func ExampleKey_String() {
	fmt.Println(ryno.Key{Scope: "acme", Type: "doc", ID: "2024:q1%"})
	// Output: acme:doc:2024%3Aq1%25
}

func ExampleValidationError() {
	db, err := ryno.New(&dynamodb.Client{}, ryno.Options{TablePrefix: "myapp"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = db.Create(context.Background(), &ryno.Entity{
		Key:        ryno.Key{Scope: "acme", Type: "person", ID: "ada"},
		Attributes: map[string]any{"_secret": "x"},
	})
	var invalid *ryno.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println(invalid.Field, "-", invalid.Reason)
	}
	fmt.Println(errors.Is(err, ryno.ErrInvalid))
	// Output:
	// Attributes._secret - names starting with '_' are reserved for the store
	// true
}

func ExampleClient_AddRelationships() {
	ctx := context.Background()
	db := connect()
	ada := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	grace := ryno.Key{Scope: "acme", Type: "person", ID: "grace"}
	alan := ryno.Key{Scope: "acme", Type: "person", ID: "alan"}

	// Appends the objects the list does not hold yet, and says which: a follower
	// count can move by exactly that.
	added, err := db.AddRelationships(ctx, ada, "follows", []ryno.Key{grace, alan})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(added), "new")
	ok, err := db.HasRelationship(ctx, ada, "follows", grace) // one query
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ok)

	// Who follows Grace?
	page, err := db.ReverseRelationships(ctx, grace, "follows", ryno.PageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range page.Items {
		fmt.Println(r.Subject.ID)
	}
}

func ExampleClient_RelatedEntities() {
	ctx := context.Background()
	db := connect()
	ada := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	for p := (ryno.PageOptions{Limit: 100}); ; {
		page, err := db.RelatedEntities(ctx, ada, "wrote", p)
		if err != nil {
			log.Fatal(err)
		}
		for _, post := range page.Items {
			fmt.Println(post.Attributes["title"])
		}
		if page.Cursor == "" {
			break
		}
		p.Cursor = page.Cursor
	}
}

func ExampleIndex() {
	byAge := ryno.Index{
		Type: "person",
		Name: "age",
		// Map sees the entity as stored: numbers are json.Number.
		Map: func(e *ryno.Entity, emit func(indexing.Value)) {
			if n, ok := e.Attributes["age"].(json.Number); ok {
				if age, err := n.Int64(); err == nil {
					emit(indexing.Int(age))
				}
			}
		},
		Project: []string{"name"},
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{
		TablePrefix: "myapp",
		Indexes:     []ryno.Index{byAge},
	})
	if err != nil {
		log.Fatal(err)
	}

	// Every person aged 18 to 65, youngest first, read fresh from the entities table.
	ctx := context.Background()
	cond := indexing.Between(indexing.Int(18), indexing.Int(65))
	for e, err := range db.AllInIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, cond, ryno.PageOptions{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.ID)
	}

	// Only the projected names: one request per page.
	entries, err := db.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, indexing.GreaterOrEqual(indexing.Int(65)), ryno.PageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, entry := range entries.Items {
		fmt.Println(entry.Attributes["name"], entry.Value.Interface())
	}
}

func ExampleClient_Check() {
	ctx := context.Background()
	db := connect()
	done, err := db.Check(ctx, ryno.CheckOptions{
		Repair:   true,
		Segments: 4, // parallel scan segments, for large tables
		OnOrphan: func(o ryno.Orphan) { fmt.Println("orphan:", o) },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d orphans deleted, %d kept as their entity was created meanwhile\n", done.Repaired, done.Kept)
}

// connect returns a client for the examples.
func connect() *ryno.Client {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{TablePrefix: "myapp"})
	if err != nil {
		log.Fatal(err)
	}
	return db
}

func ExampleClient_ReverseRelationships() {
	ctx := context.Background()
	db := connect()
	grace := ryno.Key{Scope: "acme", Type: "person", ID: "grace"}

	// Who follows Grace, not who follows or likes her: full pages of one predicate.
	for p := (ryno.PageOptions{Limit: 50}); ; {
		page, err := db.ReverseRelationships(ctx, grace, "follows", p)
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range page.Items {
			fmt.Println(r.Subject.ID)
		}
		if page.Cursor == "" {
			break
		}
		p.Cursor = page.Cursor
	}

	// Everyone pointing at Grace, under any predicate, page after page.
	for r, err := range db.AllReverseRelationships(ctx, grace, "", ryno.PageOptions{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.Subject.ID, r.Predicate)
	}
}

func ExampleClient_Transact() {
	ctx := context.Background()
	db := connect()
	from := ryno.Key{Scope: "bank", Type: "account", ID: "ada"}
	to := ryno.Key{Scope: "bank", Type: "account", ID: "grace"}

	// Both patches commit, or neither: the money is never in two places, nor gone.
	_, err := db.Transact(ctx,
		ryno.TxPatch(from, ryno.Patch{Add: map[string]any{"balance": -30}},
			ryno.If(ryno.Attr("balance").GreaterOrEqual(30))),
		ryno.TxPatch(to, ryno.Patch{Add: map[string]any{"balance": 30}}),
	)
	var refused *ryno.TransactionError
	switch {
	case errors.As(err, &refused):
		for _, op := range refused.Ops {
			fmt.Println("operation", op.Index, "refused:", op.Err) // an overdraft: a *ConditionError
		}
	case err != nil:
		log.Fatal(err)
	}
}

func ExampleClient_TransactNext() {
	ctx := context.Background()
	db := connect()
	project := ryno.Key{Scope: "acme", Type: "project", ID: "rocket"}

	// Issue numbers per project, drawn with the create: 1, 2, 3, ... with no gap and
	// no repeat, however many requests create issues at once.
	n, _, err := db.TransactNext(ctx, project, "issues", func(n int64) ([]ryno.Op, error) {
		return []ryno.Op{ryno.TxCreate(&ryno.Entity{
			Key:        ryno.Key{Scope: "acme", Type: "issue", ID: fmt.Sprintf("rocket-%d", n)},
			Attributes: map[string]any{"project": "rocket", "number": n, "title": "Fuel leak"},
		})}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created issue", n)
}

func ExampleIndex_unique() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{
		TablePrefix: "myapp",
		Indexes: []ryno.Index{{
			Type: "user", Name: "email", Unique: true,
			Map: func(e *ryno.Entity, emit func(indexing.Value)) {
				if s, ok := e.Attributes["email"].(string); ok {
					emit(indexing.String(strings.ToLower(s)))
				}
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}

	_, err = db.Create(ctx, &ryno.Entity{
		Key:        ryno.Key{Scope: "acme", Type: "user", ID: "ada"},
		Attributes: map[string]any{"email": "ada@example.com"},
	})
	var taken *ryno.UniqueError
	if errors.As(err, &taken) {
		fmt.Println("the address is", taken.Owner.ID+"'s") // also errors.Is(err, ryno.ErrExists)
		return
	} else if err != nil {
		log.Fatal(err)
	}
	user, err := db.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "email"}, indexing.String("ada@example.com"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(user.ID)
}

// An index of one value per entity can be inline: kept on the entity item, so a
// Create is one PutItem and a page of QueryIndex one Query.
func ExampleIndex_inline() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{
		TablePrefix: "myapp",
		Indexes: []ryno.Index{{
			Type: "issue", Name: "by-status", Inline: 1,
			Map: func(e *ryno.Entity, emit func(indexing.Value)) {
				status, _ := e.Attributes["status"].(string)
				opened, err := time.Parse(time.RFC3339, fmt.Sprint(e.Attributes["opened"]))
				if status != "" && err == nil {
					emit(indexing.Tuple(indexing.String(status), indexing.Time(opened)))
				}
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}

	if _, err := db.Create(ctx, &ryno.Entity{
		Key:        ryno.Key{Scope: "acme", Type: "issue", ID: "1"},
		Attributes: map[string]any{"status": "open", "opened": "2026-03-02T09:00:00Z"},
	}); err != nil {
		log.Fatal(err)
	}
	open := indexing.BeginsWith(indexing.Tuple(indexing.String("open")))
	page, err := db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "by-status"}, open, ryno.PageOptions{Descending: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, issue := range page.Items {
		fmt.Println(issue.ID, issue.Attributes["opened"]) // newest first
	}
}

// A service checks its tables once at start-up, and fails fast on a wrong prefix or
// tables not yet migrated.
func ExampleClient_CheckSchema() {
	ctx := context.Background()
	db := connect()
	err := db.CheckSchema(ctx)
	var se *ryno.SchemaError
	switch {
	case errors.Is(err, ryno.ErrTableNotFound):
		log.Fatalf("run `ryno migrate up`, or check the table prefix: %v", err)
	case errors.As(err, &se):
		log.Fatalf("the tables differ from what this version needs: %v", se)
	case err != nil:
		log.Fatal(err)
	}
}

// Book is how a service holds a book: a struct of its own, whose embedded Record
// receives the entity's key, timestamps and version.
type Book struct {
	ryno.Record
	Title string `dynamodbav:"title" json:"title"`
	Pages int    `dynamodbav:"pages" json:"pages"`
}

func ExampleGetAs() {
	ctx := context.Background()
	db := connect()
	key := ryno.Key{Scope: "acme", Type: "book", ID: "b1"}
	if err := ryno.CreateAs(ctx, db, &Book{Record: ryno.Record{Key: key}, Title: "Go", Pages: 300}); err != nil {
		log.Fatal(err)
	}

	b, err := ryno.GetAs[Book](ctx, db, key)
	if err != nil {
		log.Fatal(err)
	}
	b.Pages++
	// The write checks the version read: ErrConflict if someone wrote it since.
	if err := ryno.SetAs(ctx, db, b); err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Title, b.Pages, b.Version) // b.Version is the stored one
}

func ExamplePageAs() {
	ctx := context.Background()
	db := connect()
	page, err := ryno.PageAs[Book](db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "book"}, ryno.PageOptions{Limit: 20}))
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range page.Items {
		fmt.Println(b.Key.ID, b.Title)
	}
}

// Lists are written with the entity only when asked: reading an entity with its
// lists and writing it back leaves them as they are.
func ExampleReplaceLists() {
	ctx := context.Background()
	db := connect()
	ada := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	grace := ryno.Key{Scope: "acme", Type: "person", ID: "grace"}
	_, err := db.Set(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"name": "Ada"}},
		ryno.ReplaceLists(map[string][]ryno.Key{"follows": {grace}}))
	if err != nil {
		log.Fatal(err)
	}
}

func ExampleEntity_String() {
	e := ryno.Entity{
		Key:        ryno.Key{Scope: "acme", Type: "person", ID: "ada"},
		Attributes: map[string]any{"name": "Ada", "age": json.Number("36")},
		Version:    3,
	}
	fmt.Println(e)
	// Output:
	// acme:person:ada v3 map[age:36 name:Ada]
}

// A service sees what each call cost, traces it and logs its retries. The DynamoDB
// client's own requests become child spans when its middleware is instrumented
// too: otelaws.AppendMiddlewares(&cfg.APIOptions) from
// go.opentelemetry.io/contrib/instrumentation/github.com/aws/aws-sdk-go-v2/otelaws.
func ExampleOptions_observability() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{
		TablePrefix:    "myapp",
		TracerProvider: otel.GetTracerProvider(),
		Logger:         slog.Default(),
		OnCall: func(ctx context.Context, r ryno.CallReport) {
			for _, c := range r.Capacity {
				slog.InfoContext(ctx, "capacity", "op", r.Op, "table", c.Table, "index", c.Index, "read", c.Read, "write", c.Write)
			}
			if r.Throttles > 0 {
				slog.WarnContext(ctx, "throttled", "op", r.Op, "times", r.Throttles, "requests", r.Requests)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := db.Get(ctx, ryno.Key{Scope: "acme", Type: "person", ID: "ada"}); err != nil && !errors.Is(err, ryno.ErrNotFound) {
		log.Fatal(err)
	}
}

func ExampleModifyAs() {
	ctx := context.Background()
	db := connect()
	type Book struct {
		ryno.Record
		Title string `dynamodbav:"title"`
		Pages int    `dynamodbav:"pages"`
	}
	key := ryno.Key{Scope: "acme", Type: "book", ID: "go"}

	// Only the pages change: attributes Book does not name stay as stored.
	b, err := ryno.ModifyAs(ctx, db, key, func(b *Book) error {
		b.Pages++
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Title, b.Pages, b.Version)
}

func ExampleInBackground() {
	ctx := context.Background()
	db := connect() // with Options.Owns: projects own their issues
	project := ryno.Key{Scope: "acme", Type: "project", ID: "rocket"}

	// Answer the request as soon as the project reads as deleted; its issues and
	// their comments are deleted meanwhile.
	if err := db.Delete(ctx, project, ryno.InBackground()); err != nil {
		log.Fatal(err)
	}
	// At shutdown, wait for what is still running.
	if err := db.Wait(ctx); err != nil {
		log.Print(err) // the tombstone stays: the next Delete or check --repair completes it
	}
}

func ExampleEntity_expires() {
	ctx := context.Background()
	db := connect()
	k := ryno.Key{Scope: "acme", Type: "session", ID: "s-81f2"}

	// The session reads as missing from the second it expires; the first writer
	// that meets it, a stream consumer (changes.Completer) or
	// `ryno check --repair` deletes what refers to it.
	_, err := db.Create(ctx, &ryno.Entity{
		Key:        k,
		Attributes: map[string]any{"user": "ada"},
		Expires:    time.Now().Add(30 * time.Minute),
	})
	if err != nil {
		log.Fatal(err)
	}

	// Each request extends it; a session expired meanwhile is not brought back.
	_, err = db.Patch(ctx, k, ryno.Patch{Expires: time.Now().Add(30 * time.Minute)})
	if errors.Is(err, ryno.ErrNotFound) {
		fmt.Println("expired: sign in again")
	} else if err != nil {
		log.Fatal(err)
	}
}

// An ordered set lists its objects in the order they were added, and writers of
// one never conflict: a board's cards, a group's members by the time they joined.
func ExampleOptions_orderedSets() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{TablePrefix: "myapp_", OrderedSets: []string{"cards"}})
	if err != nil {
		log.Fatal(err)
	}
	board := ryno.Key{Scope: "acme", Type: "board", ID: "roadmap"}
	card := func(id string) ryno.Key { return ryno.Key{Scope: "acme", Type: "card", ID: id} }

	// Each card after those already there; a card there already keeps its place.
	if _, err := db.AddRelationships(ctx, board, "cards", []ryno.Key{card("a"), card("b")}); err != nil {
		log.Fatal(err)
	}
	// Moves c to the front: one put, between nothing and a.
	if err := db.ReplaceRelationships(ctx, board, "cards", []ryno.Key{card("c"), card("a"), card("b")}); err != nil {
		log.Fatal(err)
	}
	page, err := db.Relationships(ctx, board, "cards", ryno.PageOptions{Limit: 20})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range page.Items {
		fmt.Println(r.Object.ID) // c, a, b
	}
}
