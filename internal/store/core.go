package store

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
)

// Key identifies an entity: package entity's type, which ryno.Key names too.
type Key = entity.Key

// Config is what the machinery reads of the client's options, with the defaults
// already applied.
type Config struct {
	Now            func() time.Time // the clock of expiries, leases and timestamps
	MaxConcurrency int              // requests of one call in flight at once
	ConsistentRead bool             // reads are strongly consistent unless a call says otherwise
	Retry          batching.Policy  // retries of throttled, unprocessed and ambiguous requests
	Conflicts      batching.Policy  // attempts of a write that loses races to other writers
	ListLease      time.Duration    // how long a lease holds a list for its writer
	Sets           map[string]bool  // the predicates declared sets or ordered sets
	Ordered        map[string]bool  // the predicates declared ordered sets
	CheckObjects   bool             // list writes check that their objects exist
	// SeparateListWrites writes every Add and Remove of a list alone, never with
	// the calls queued for the same list.
	SeparateListWrites bool
	Owns               map[string][]string // the predicates whose objects each owner type owns
	// OwnersOf holds, by object type, the owned lists whose owner's Delete hides
	// their objects of that type from readers at once (Owns.ObjectType).
	OwnersOf map[string][]OwnerList
	Indexes  Indexes // the registered indexes
	// TypeShards holds the sharded types' shard counts, by type.
	TypeShards map[string]TypeShards
	// IncomingShards holds, by object type, the shard counts of the entries
	// pointing at entities of the types whose incoming entries are sharded.
	IncomingShards map[string]TypeShards
	// Deletes completes a deletion that a call meets unfinished.
	Deletes Completer
	// Retrying is told of each retry: why, after how long, and the cause.
	Retrying func(ctx context.Context, why batching.Reason, wait time.Duration, cause error)
}

// Completer completes the deletion of an entity that a call meets unfinished (a
// Delete cut off after its tombstone, or an entity past its expiry) before the
// call goes on. Package deletes is one; the client hands it to the core when it is
// built, so that the core never calls up into it.
type Completer interface {
	CompleteDelete(ctx context.Context, k Key, s entitystate.State) error
}

// Core holds what every part of the store shares: the DynamoDB client behind the
// request pipeline, the table names, the batch engine and the configuration.
type Core struct {
	API   requests.API
	Names schema.Names
	Batch *batching.Engine
	Config

	Shapes Shapes // of the entities written and found, by type
	// Incoming places the entries written in the reverse index (IncomingShards).
	Incoming relationships.Shards
}

// NewCore returns the core of a client.
func NewCore(api requests.API, names schema.Names, batch *batching.Engine, cfg Config) *Core {
	c := &Core{API: api, Names: names, Batch: batch, Config: cfg}
	for typ, t := range cfg.IncomingShards {
		if t.Shards > 1 {
			if c.Incoming == nil {
				c.Incoming = relationships.Shards{}
			}
			c.Incoming[typ] = t.Shards
		}
	}
	return c
}

// Pacing is how a conditional write is sent again: within Config.Retry, reporting
// each retry.
func (c *Core) Pacing() commit.Pacing {
	return commit.Pacing{Retry: c.Retry, Sleep: c.Batch.Sleep, Retrying: c.Retrying}
}

// Settle is commit.Settle with the core's pacing.
func (c *Core) Settle(ctx context.Context, send, resolve func(context.Context) commit.Attempt) commit.Attempt {
	return commit.Settle(ctx, c.Pacing(), send, resolve)
}

// Transact commits a transaction (commit.Transact) with the core's pacing.
func (c *Core) Transact(ctx context.Context, actions []types.TransactWriteItem, token string) commit.Attempt {
	return commit.Transact(ctx, c.API, c.Pacing(), actions, token)
}

// ConflictPacer returns the pacer of a write that may lose races to other writers,
// within Config.Conflicts.
func (c *Core) ConflictPacer() *batching.Pacer {
	return batching.NewPacer(c.Conflicts, c.Batch.Sleep, c.Retrying)
}

// AttrS and AttrN are the attribute values of a string and an integer.
func AttrS(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func AttrN(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
