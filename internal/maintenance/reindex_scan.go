// Reindexing every entity of a type: pages of a type's entities, each entity's index entries rewritten from its record.

package maintenance

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// reindexPage is how many entities Reindex reads per request.
const reindexPage = 100

// Reindex brings the index entries of every entity of typ in scope in line with
// the registered indexes, and moves those listed in another by-type layout than
// their type's, a page of entities at a time, and tells done what each page did.
// It reads each partition key the type's listing reads, the unsharded one first:
// an entity a write moves meanwhile leaves it for a shard, whose writer put it in
// line.
func (m *Maintainer) Reindex(ctx context.Context, scope, typ string, done func(store.ReindexCount)) error {
	q, err := m.core.ByTypePage(scope, typ)
	if err != nil {
		return err
	}
	parts := q.Shards
	if len(parts) == 0 {
		parts = []store.PageQuery{q}
	}
	for _, part := range parts {
		in := *part.In
		in.Limit = aws.Int32(reindexPage)
		err = m.core.QueryPages(ctx, &in, func(items []map[string]types.AttributeValue) error {
			n, err := m.core.ReindexPage(ctx, items)
			if err != nil {
				return err
			}
			done(n)
			return nil
		})
		if err != nil {
			break
		}
	}
	return errs.Wrap(err, "reindex %s", schema.ScopeTypeKey(scope, typ))
}
