package costmodel

import (
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Reported returns the capacity the response out reports it consumed
// (ReturnConsumedCapacity INDEXES), as a Cost, and whether it reports any. The units
// of a write request count as writes, those of a read request as reads.
//
// DynamoDB reports nothing for a request that failed, though it may bill one (a
// failed condition), and DynamoDB Local under-reports transactions: this is what
// the service says, to compare Bill with where they should agree.
func Reported(out any) (Cost, bool) {
	var (
		list  []types.ConsumedCapacity
		write bool
	)
	switch out := out.(type) {
	case *dynamodb.PutItemOutput:
		list, write = one(out.ConsumedCapacity), true
	case *dynamodb.UpdateItemOutput:
		list, write = one(out.ConsumedCapacity), true
	case *dynamodb.DeleteItemOutput:
		list, write = one(out.ConsumedCapacity), true
	case *dynamodb.BatchWriteItemOutput:
		list, write = out.ConsumedCapacity, true
	case *dynamodb.TransactWriteItemsOutput:
		list, write = out.ConsumedCapacity, true
	case *dynamodb.GetItemOutput:
		list = one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		list = out.ConsumedCapacity
	case *dynamodb.QueryOutput:
		list = one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		list = one(out.ConsumedCapacity)
	}
	if len(list) == 0 {
		return Cost{}, false
	}
	var b bill
	add := func(table, index string, units float64) {
		if write {
			b.write(table, index, units)
		} else {
			b.read(table, index, units)
		}
	}
	for _, c := range list {
		name := aws.ToString(c.TableName)
		if c.Table != nil {
			add(name, "", aws.ToFloat64(c.Table.CapacityUnits))
		} else if len(c.GlobalSecondaryIndexes) == 0 && len(c.LocalSecondaryIndexes) == 0 {
			add(name, "", aws.ToFloat64(c.CapacityUnits))
		}
		for _, indexes := range []map[string]types.Capacity{c.GlobalSecondaryIndexes, c.LocalSecondaryIndexes} {
			for _, ix := range slices.Sorted(maps.Keys(indexes)) {
				add(name, ix, aws.ToFloat64(indexes[ix].CapacityUnits))
			}
		}
	}
	return b.cost(), true
}

func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}
