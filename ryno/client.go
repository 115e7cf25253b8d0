package ryno

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/deletes"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/maintenance"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/transfer"
	"github.com/rynodb/rynodb/internal/writes"
	"github.com/rynodb/rynodb/tables"
)

// Client reads and writes entities in the tables of one prefix. It is safe for
// concurrent use.
type Client struct {
	core     *store.Core             // the tables, their requests and the configuration the machinery reads
	lists    *lists.Engine           // relationship lists, sets and ordered sets, over core
	writes   *writes.Writer          // Create, Update, Set, Patch and Transact, over core
	deletes  *deletes.Deleter        // Delete, and deletions completed, over core
	maint    *maintenance.Maintainer // Check and Reindex, over core
	transfer *transfer.Mover         // Export and Import, over core
	opts     Options
	indexes  indexRegistry
	obs      *observer  // nil when nobody observes the calls
	bg       background // work left running by calls that returned
}

// New returns a Client using api, typically a *dynamodb.Client. The tables must exist
// (see package migrations and the `ryno migrate up` command). A nil api, or a nil
// *dynamodb.Client in it, fails with a *ValidationError (ErrInvalid), as do invalid
// options.
//
// Every call of the Client takes a context first, which must not be nil: a call
// given a nil context returns a *ValidationError (ErrInvalid) and sends nothing.
// Pass context.Background() when there is no better one.
func New(api DynamoDBAPI, opts Options) (*Client, error) {
	if err := checkAPI(api); err != nil {
		return nil, err
	}
	names, err := schema.NewNames(opts.TablePrefix)
	if err != nil {
		return nil, err
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	registry, err := newIndexRegistry(opts.Indexes)
	if err != nil {
		return nil, err
	}
	owns, err := newOwnership(opts.Owns)
	if err != nil {
		return nil, err
	}
	sharded, err := typeShards("ShardedTypes", opts.ShardedTypes)
	if err != nil {
		return nil, err
	}
	incoming, err := typeShards("ShardedIncoming", opts.ShardedIncoming)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	obs := newObserver(opts)
	if obs != nil {
		api = requests.Observed{API: api}
	}
	api = requests.Reads{API: requests.Missing{API: api}, Retry: batching.Policy(opts.Retry), Sleep: batching.SleepContext, Retrying: retrying}
	batch := batching.NewEngine(api, opts.MaxConcurrency, batching.Policy(opts.Retry))
	batch.Retrying = retrying
	core := store.NewCore(api, names, batch, store.Config{
		Now:                opts.Now,
		MaxConcurrency:     opts.MaxConcurrency,
		ConsistentRead:     opts.ConsistentRead,
		Retry:              batching.Policy(opts.Retry),
		Conflicts:          batching.Policy(opts.Conflicts),
		Retrying:           retrying,
		ListLease:          opts.ListLease,
		Sets:               setOf(slices.Concat(opts.Sets, opts.OrderedSets)),
		Ordered:            setOf(opts.OrderedSets),
		CheckObjects:       opts.CheckObjects,
		Owns:               owns.owns,
		OwnersOf:           owns.ownersOf,
		Indexes:            registryView{registry},
		SeparateListWrites: opts.SeparateListWrites,
		TypeShards:         sharded,
		IncomingShards:     incoming,
	})
	le := lists.New(core)
	dels := deletes.New(core, le)
	core.Deletes = dels
	w := writes.New(core, le)
	c := &Client{
		core:     core,
		lists:    le,
		writes:   w,
		deletes:  dels,
		maint:    maintenance.New(core, le, dels),
		transfer: transfer.New(core, le, w, opts.MaxConcurrency),
		opts:     opts,
		indexes:  registry,
		obs:      obs,
	}
	return c, nil
}

// Names returns the table and index names the client uses.
func (c *Client) Names() tables.Names { return c.core.Names }

// checkAPI refuses a nil api, and an interface holding a nil pointer (a nil
// *dynamodb.Client), whose first request would panic.
func checkAPI(api DynamoDBAPI) error {
	if api == nil {
		return invalid("api", "", "New needs a DynamoDB client, such as dynamodb.NewFromConfig(cfg)")
	}
	switch v := reflect.ValueOf(api); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface:
		if v.IsNil() {
			return invalid("api", "", fmt.Sprintf("is a nil %T; New needs a DynamoDB client, such as dynamodb.NewFromConfig(cfg)", api))
		}
	}
	return nil
}
