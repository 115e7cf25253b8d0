// Reindexing every entity of a type: pages of a type's entities, each entity's index entries rewritten from its record.

package maintenance

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// reindexPage is how many entities Reindex reads per request.
const reindexPage = 100

// Reindex brings the index entries of every entity of typ in scope in line with
// the registered indexes, a page of entities at a time, and tells done what each
// page did: the entities read, the entries put and deleted, and the unique values
// it found held by another entity.
func (m *Maintainer) Reindex(ctx context.Context, scope, typ string, done func(items, puts, deletes int, dups []indexing.Duplicate)) error {
	q, err := m.core.ByTypePage(scope, typ)
	if err != nil {
		return err
	}
	in := *q.In
	in.Limit = aws.Int32(reindexPage)
	err = m.core.QueryPages(ctx, &in, func(items []map[string]types.AttributeValue) error {
		puts, deletes, dups, err := m.core.ReindexPage(ctx, items)
		if err != nil {
			return err
		}
		done(len(items), puts, deletes, dups)
		return nil
	})
	return errs.Wrap(err, "reindex %s", schema.ScopeTypeKey(scope, typ))
}
