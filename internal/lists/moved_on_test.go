package lists

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func TestMovedOnWhenAnotherWriterCommittedOrCreatedTheHead(t *testing.T) {
	n := func(v int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	head := func(version int64, lease string) map[string]types.AttributeValue {
		item := map[string]types.AttributeValue{schema.AttrVersion: n(version), schema.AttrNext: n(0),
			schema.AttrCount: n(0), schema.AttrDigest: n(0)}
		if lease != "" {
			item[schema.AttrLease] = &types.AttributeValueMemberS{Value: lease}
			item[schema.AttrLeaseUntil] = n(time.Now().Add(time.Minute).UnixMilli())
		}
		return item
	}
	refusedBy := func(item map[string]types.AttributeValue) commit.Attempt {
		return commit.Attempt{Outcome: commit.ConditionFailed, Action: 1,
			Reasons: []types.CancellationReason{{}, {Item: item}}}
	}
	op := Op{Kind: Add, Subject: store.Key{Scope: "acme", Type: "person", ID: "ada"}, Predicate: "follows"}
	tests := []struct {
		name string
		read int64 // the head's version as the write read it; 0: no head
		a    commit.Attempt
		want bool
	}{
		{"a later version: another writer committed", 3, refusedBy(head(4, "")), true},
		{"no head read, one there now: another writer created it", 0, refusedBy(head(1, "")), true},
		{"the same version: refused for something else", 3, refusedBy(head(3, "")), false},
		{"a lease: held, not moved on", 3, refusedBy(head(4, "token")), false},
		{"no head read, a leased one there now", 0, refusedBy(head(1, "token")), false},
		{"the head gone", 3, refusedBy(nil), false},
		{"no reason for the action", 3, commit.Attempt{Outcome: commit.ConditionFailed, Action: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := relationships.Head{Subject: op.Subject, Predicate: op.Predicate, Version: tt.read}
			require.Equal(t, tt.want, (&Engine{}).movedOn(op, h, tt.a))
		})
	}
}
