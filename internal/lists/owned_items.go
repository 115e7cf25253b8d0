package lists

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// ReadListsAndSequences returns every entry of subject's lists, in key order, and
// the last numbers drawn from its sequences, by name: one consistent Query of the
// subject's partition from its sequences on, which skips the lists' heads, markers
// and intents (their keys sort before the sequences').
func (c *Engine) ReadListsAndSequences(ctx context.Context, subject store.Key) ([]relationships.Entry, map[string]int64, error) {
	in := store.KeyCondition(c.core.Names.Relationships, "", schema.AttrSubjectKey, subject.String())
	in.KeyConditionExpression = aws.String("#pk = :pk AND #sk >= :sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrPredicateKey
	in.ExpressionAttributeValues[":sk"] = store.AttrS(schema.SequencePrefix)
	in.ConsistentRead = aws.Bool(true)
	var entries []relationships.Entry
	var sequences map[string]int64
	err := c.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			sk, _ := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
			if sk != nil && strings.HasPrefix(sk.Value, schema.SequencePrefix) {
				name, _ := item[schema.AttrSequence].(*types.AttributeValueMemberS)
				n, err := entitystate.VersionValue(item[schema.AttrValue])
				if name == nil || err != nil {
					return errs.Wrap(err, "sequence of %s", subject)
				}
				if sequences == nil {
					sequences = map[string]int64{}
				}
				sequences[name.Value] = n
				continue
			}
			if sk != nil && sk.Value < schema.EntriesStart {
				continue // bookkeeping this program does not know
			}
			e, err := relationships.FromItem(item)
			if err != nil {
				return errs.Wrap(err, "decode relationship entry")
			}
			entries = append(entries, e)
		}
		return nil
	})
	return entries, sequences, err
}
