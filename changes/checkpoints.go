package changes

import (
	"context"
	"errors"
	"maps"
	"sync"

	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/tables"
)

// Checkpoints keeps where a Reader stands in each shard of a stream: the sequence
// number of the last record handled, or that the shard was read to its end. Save
// is called from one goroutine per shard at once.
type Checkpoints interface {
	// Load returns the position of every shard saved: shard ID to sequence
	// number, or ShardEnd.
	Load(ctx context.Context) (map[string]string, error)
	// Save records the position of one shard.
	Save(ctx context.Context, shard, position string) error
}

// Owner is implemented by Checkpoints that keep their positions in a table whose
// stream a Reader may read: Owns reports whether a record's keys are those of the
// checkpoint's own item, which the Reader keeps from its handler.
type Owner interface {
	Owns(table string, keys map[string]streams.AttributeValue) bool
}

// ShardEnd is the position of a shard read to its end: DynamoDB closed it (it does
// every few hours), and its children follow it.
const ShardEnd = "end"

// shardEnd is ShardEnd within the package.
const shardEnd = ShardEnd

// MemoryCheckpoints keeps positions in memory, for one process's life: a Reader
// run again in the same process goes on where it stopped, a new process starts from
// the oldest record the stream keeps.
type MemoryCheckpoints struct {
	mu        sync.Mutex
	positions map[string]string
}

// NewMemoryCheckpoints returns empty MemoryCheckpoints.
func NewMemoryCheckpoints() *MemoryCheckpoints {
	return &MemoryCheckpoints{positions: map[string]string{}}
}

// Load returns a copy of the positions saved.
func (m *MemoryCheckpoints) Load(context.Context) (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.positions), nil
}

// Save records the position of shard.
func (m *MemoryCheckpoints) Save(_ context.Context, shard, position string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.positions[shard] = position
	return nil
}

// StoreCheckpoints keeps positions in an entity of the store, one attribute per
// shard: a consumer restarted, on this machine or another, goes on where it
// stopped. Give each consumer of a stream an entity of its own.
type StoreCheckpoints struct {
	db  *ryno.Client
	key ryno.Key
	mu  sync.Mutex // one Save at a time: the first creates the entity
}

// CheckpointsIn returns the Checkpoints kept in the entity k of db, created by the
// first Save. Each Save is one UpdateItem (one PutItem the first time); a shard read
// to its end and no longer listed keeps its attribute until a Save removes it.
func CheckpointsIn(db *ryno.Client, k ryno.Key) (*StoreCheckpoints, error) {
	if db == nil {
		return nil, invalid("CheckpointsIn", "", "needs a client")
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return &StoreCheckpoints{db: db, key: k}, nil
}

// Load reads the entity's positions; none when it does not exist yet.
func (s *StoreCheckpoints) Load(ctx context.Context) (map[string]string, error) {
	e, err := s.db.Get(ctx, s.key, ryno.Consistent())
	if errors.Is(err, ryno.ErrNotFound) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	positions := make(map[string]string, len(e.Attributes))
	for shard, v := range e.Attributes {
		if p, ok := v.(string); ok {
			positions[shard] = p
		}
	}
	return positions, nil
}

// Save sets the shard's attribute to position.
func (s *StoreCheckpoints) Save(ctx context.Context, shard, position string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.db.Patch(ctx, s.key, ryno.Patch{Set: map[string]any{shard: position}})
	if errors.Is(err, ryno.ErrNotFound) {
		_, err = s.db.Create(ctx, &ryno.Entity{Key: s.key, Attributes: map[string]any{shard: position}})
	}
	return err
}

// Owns reports whether keys are those of the checkpoint entity's item in the
// entities table.
func (s *StoreCheckpoints) Owns(table string, keys map[string]streams.AttributeValue) bool {
	if table != s.db.Names().Entities {
		return false
	}
	id, _ := keys[schema.AttrID].(*streams.AttributeValueMemberS)
	stk, _ := keys[schema.AttrScopeTypeKey].(*streams.AttributeValueMemberS)
	return id != nil && stk != nil && id.Value == s.key.ID && stk.Value == schema.ScopeTypeKey(s.key.Scope, s.key.Type)
}

// invalid is the error of input refused before any request.
func invalid(field, value, reason string) error {
	return &tables.ValidationError{Field: field, Value: value, Reason: reason}
}
