package indexes

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/indexentries"
)

// Emit runs the map functions of the indexes of k's type on e, the entity stored as
// item, and returns its entries, each with the attributes its index projects.
func (reg Registry[E]) Emit(k entity.Key, e E, item map[string]types.AttributeValue) ([]indexentries.Entry, error) {
	var entries []indexentries.Entry
	for _, ix := range reg[k.Type] {
		values, err := indexentries.Emit(ix.Name, func(emit func(indexing.Value)) { ix.Map(e, emit) })
		if err != nil {
			return nil, err
		}
		projected := batching.Project(item, ix.Project)
		for name, v := range projected {
			if v == nil {
				delete(projected, name)
			}
		}
		for _, v := range values {
			entries = append(entries, indexentries.Entry{
				Scope: k.Scope, Type: k.Type, ID: k.ID, IndexName: ix.Name, Value: v, Attributes: projected, Shards: ix.Shards,
			})
		}
	}
	return entries, nil
}
