package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// Where the policy under test names its resources.
const (
	policyAccount = "111122223333"
	policyRegion  = "us-east-1"
)

// access is what IAM authorizes for one request, or one item of a transaction:
// an action on a table or index ARN.
type access struct{ action, resource string }

// authorizer records the accesses of every request sent through it, computed from
// the request itself as IAM computes them: a transaction needs the action of each
// item's kind, a query of an index needs Query on the index.
type authorizer struct {
	*dynamodb.Client
	mu   sync.Mutex
	seen map[access]bool
}

func (a *authorizer) record(action string, table *string, index *string) {
	arn := fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", policyRegion, policyAccount, aws.ToString(table))
	if index != nil {
		arn += "/index/" + *index
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen[access{"dynamodb:" + action, arn}] = true
}

func (a *authorizer) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	a.record("GetItem", in.TableName, nil)
	return a.Client.GetItem(ctx, in, opts...)
}

func (a *authorizer) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	a.record("PutItem", in.TableName, nil)
	return a.Client.PutItem(ctx, in, opts...)
}

func (a *authorizer) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	a.record("UpdateItem", in.TableName, nil)
	return a.Client.UpdateItem(ctx, in, opts...)
}

func (a *authorizer) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	a.record("DeleteItem", in.TableName, nil)
	return a.Client.DeleteItem(ctx, in, opts...)
}

func (a *authorizer) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	a.record("Query", in.TableName, in.IndexName)
	return a.Client.Query(ctx, in, opts...)
}

func (a *authorizer) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	a.record("Scan", in.TableName, in.IndexName)
	return a.Client.Scan(ctx, in, opts...)
}

func (a *authorizer) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	for table := range in.RequestItems {
		a.record("BatchGetItem", &table, nil)
	}
	return a.Client.BatchGetItem(ctx, in, opts...)
}

func (a *authorizer) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for table := range in.RequestItems {
		a.record("BatchWriteItem", &table, nil)
	}
	return a.Client.BatchWriteItem(ctx, in, opts...)
}

func (a *authorizer) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, item := range in.TransactItems {
		a.recordTransactItem(item)
	}
	return a.Client.TransactWriteItems(ctx, in, opts...)
}

func (a *authorizer) recordTransactItem(item types.TransactWriteItem) {
	switch {
	case item.Put != nil:
		a.record("PutItem", item.Put.TableName, nil)
	case item.Update != nil:
		a.record("UpdateItem", item.Update.TableName, nil)
	case item.Delete != nil:
		a.record("DeleteItem", item.Delete.TableName, nil)
	case item.ConditionCheck != nil:
		a.record("ConditionCheckItem", item.ConditionCheck.TableName, nil)
	}
}

func (a *authorizer) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	a.record("DescribeTable", in.TableName, nil)
	return a.Client.DescribeTable(ctx, in, opts...)
}

// policyDocument is the part of an IAM policy the test evaluates.
type policyDocument struct {
	Statement []struct {
		Effect   string
		Action   []string
		Resource []string
	}
}

// allows reports whether a statement of the policy allows acc. The policy names
// every action and resource in full, so equality is IAM's match.
func (p policyDocument) allows(acc access) bool {
	for _, s := range p.Statement {
		if s.Effect == "Allow" && slices.Contains(s.Action, acc.action) && slices.Contains(s.Resource, acc.resource) {
			return true
		}
	}
	return false
}

// TestIAMPolicyAllowsWhatTheLibrarySends runs every kind of call of the library
// against DynamoDB Local and checks each access its requests need against the
// policy `ryno iam-policy` prints, and that the policy allows nothing they do not.
func TestIAMPolicyAllowsWhatTheLibrarySends(t *testing.T) {
	isolateAWS(t)
	ctx := context.Background()
	api := dynamotest.API(t)
	prefix := dynamotest.Tables(t, api)
	out, errOut, code := runRyno(t, "iam-policy", "--prefix", prefix, "--account", policyAccount, "--region", policyRegion)
	if code != 0 {
		t.Fatalf("ryno iam-policy: exit %d: %s", code, errOut)
	}
	var policy policyDocument
	if err := json.Unmarshal([]byte(out), &policy); err != nil {
		t.Fatalf("policy: %v\n%s", err, out)
	}

	rec := &authorizer{Client: api, seen: map[access]bool{}}
	indexes := []ryno.Index{
		{Type: "person", Name: "email", Map: emitEmail, Unique: true},
		{Type: "post", Name: "tag", Map: emitTags},
	}
	db, err := ryno.New(rec, ryno.Options{TablePrefix: prefix, Indexes: indexes, CheckObjects: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range policyWorkload(db, api) {
		if err := step.run(ctx); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
	}

	granted := map[access]bool{}
	for _, s := range policy.Statement {
		for _, action := range s.Action {
			for _, resource := range s.Resource {
				granted[access{action, resource}] = true
			}
		}
	}
	var denied, unused []string
	for acc := range rec.seen {
		if !policy.allows(acc) {
			denied = append(denied, acc.action+" on "+acc.resource)
		}
	}
	usedActions := map[string]bool{}
	for acc := range rec.seen {
		usedActions[acc.action] = true
	}
	for acc := range granted {
		if !usedActions[acc.action] {
			unused = append(unused, acc.action)
		}
	}
	sort.Strings(denied)
	sort.Strings(unused)
	if len(denied) > 0 {
		t.Errorf("the policy denies what the library sends:\n%v", denied)
	}
	if len(unused) > 0 {
		t.Errorf("the policy allows actions no call sent: %v", slices.Compact(unused))
	}
	t.Logf("the calls needed %d distinct accesses; the policy grants %d action-resource pairs", len(rec.seen), len(granted))
}

type policyStep struct {
	name string
	run  func(context.Context) error
}

// policyWorkload returns one call of each kind the library has, in an order in
// which each succeeds.
func policyWorkload(db *ryno.Client, raw *dynamodb.Client) []policyStep {
	ada := ryno.Key{Scope: "iam", Type: "person", ID: "ada"}
	alan := ryno.Key{Scope: "iam", Type: "person", ID: "alan"}
	post := ryno.Key{Scope: "iam", Type: "post", ID: "p1"}
	person := func(k ryno.Key, email string) *ryno.Entity {
		return &ryno.Entity{Key: k, Attributes: map[string]any{"email": email}}
	}
	page := ryno.PageOptions{Limit: 10}
	ignore := func(_ any, err error) error { return err }
	return []policyStep{
		{"CheckSchema", func(ctx context.Context) error { return db.CheckSchema(ctx) }},
		{"Create", func(ctx context.Context) error { return ignore(db.Create(ctx, person(ada, "ada@example.com"))) }},
		{"Set", func(ctx context.Context) error { return ignore(db.Set(ctx, person(alan, "alan@example.com"))) }},
		{"Set with lists", func(ctx context.Context) error {
			return ignore(db.Set(ctx, &ryno.Entity{Key: post, Attributes: map[string]any{"tags": []string{"go"}}},
				ryno.ReplaceLists(map[string][]ryno.Key{"author": {ada}})))
		}},
		{"Update", func(ctx context.Context) error {
			return ignore(db.Update(ctx, person(ada, "ada@example.org")))
		}},
		{"Modify", func(ctx context.Context) error {
			return ignore(db.Modify(ctx, alan, func(e *ryno.Entity) error { e.Attributes["age"] = 41; return nil }))
		}},
		{"Patch", func(ctx context.Context) error {
			return ignore(db.Patch(ctx, post, ryno.Patch{Add: map[string]any{"likes": 1}}))
		}},
		{"Get", func(ctx context.Context) error { return ignore(db.Get(ctx, ada, ryno.WithRelationships())) }},
		{"BatchGet", func(ctx context.Context) error { return ignore(db.BatchGet(ctx, []ryno.Key{ada, alan, post})) }},
		{"ListByType", func(ctx context.Context) error {
			return ignore(db.ListByType(ctx, ryno.Type{Scope: "iam", Name: "person"}, page))
		}},
		{"AddRelationships", func(ctx context.Context) error {
			return ignore(db.AddRelationships(ctx, ada, "follows", []ryno.Key{alan}))
		}},
		{"ReplaceRelationships", func(ctx context.Context) error {
			return db.ReplaceRelationships(ctx, alan, "follows", []ryno.Key{ada})
		}},
		{"Relationships", func(ctx context.Context) error { return ignore(db.Relationships(ctx, ada, ryno.AllPredicates, page)) }},
		{"RelatedEntities", func(ctx context.Context) error { return ignore(db.RelatedEntities(ctx, ada, "follows", page)) }},
		{"ReverseRelationships", func(ctx context.Context) error {
			return ignore(db.ReverseRelationships(ctx, ada, ryno.AllPredicates, page))
		}},
		{"ReverseRelationships of a predicate", func(ctx context.Context) error {
			return ignore(db.ReverseRelationships(ctx, ada, "follows", page))
		}},
		{"HasRelationship", func(ctx context.Context) error { return ignore(db.HasRelationship(ctx, ada, "follows", alan)) }},
		{"CountRelationships", func(ctx context.Context) error { return ignore(db.CountRelationships(ctx, ada, "follows")) }},
		{"RemoveRelationships", func(ctx context.Context) error {
			return ignore(db.RemoveRelationships(ctx, ada, "follows", []ryno.Key{alan}))
		}},
		{"QueryIndex", func(ctx context.Context) error {
			return ignore(db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "iam", Index: "tag"}, indexing.Equal(indexing.String("go")), page))
		}},
		{"QueryIndexEntries", func(ctx context.Context) error {
			return ignore(db.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "iam", Index: "tag"}, indexing.All(), page))
		}},
		{"GetByUnique", func(ctx context.Context) error {
			return ignore(db.GetByUnique(ctx, ryno.ScopedIndex{Scope: "iam", Index: "email"}, indexing.String("ada@example.org")))
		}},
		{"Transact", func(ctx context.Context) error {
			return ignore(db.Transact(ctx,
				ryno.TxCheck(ada, ryno.Attr("email").Exists()),
				ryno.TxPatch(alan, ryno.Patch{Set: map[string]any{"title": "Dr"}}),
				ryno.TxAddRelationships(alan, "likes", []ryno.Key{post})))
		}},
		{"Reindex", func(ctx context.Context) error {
			return ignore(db.Reindex(ctx, ryno.Type{Scope: "iam", Name: "post"}, nil))
		}},
		{"Delete", func(ctx context.Context) error { return db.Delete(ctx, post) }},
		{"Check --repair of a malformed entry", func(ctx context.Context) error {
			// Written around the library, as a broken tool might: the repair deletes it
			// with BatchWriteItem, having no entity to check.
			_, err := raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.Names().Relationships), Item: map[string]types.AttributeValue{
				"_subject_key": &types.AttributeValueMemberS{Value: "iam:person:x"}, "_predicate_key": &types.AttributeValueMemberS{Value: "knows:0000000000:person:y"},
			}})
			if err == nil {
				_, err = db.Check(ctx, ryno.CheckOptions{Repair: true})
			}
			return err
		}},
	}
}
