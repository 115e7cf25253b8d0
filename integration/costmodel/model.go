package costmodel

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Request is one request as it was sent, and what came of it: what Bill needs.
type Request struct {
	// Op names the operation: "PutItem", "Query", ...
	Op string
	// Input is the request: *dynamodb.PutItemInput, *dynamodb.QueryInput, ...
	Input any
	// Output is the response, nil when Err is set.
	Output any
	// Err is the error the request returned.
	Err error

	// Before holds the items the request wrote, or read by key, as they were just
	// before it was sent, by Ref; a Ref absent from a non-nil Before had no item. Nil
	// means the images are unknown: the model then takes what the request and its
	// response show (ReturnValues, the item a failed condition returns), and counts
	// what they do not show as absent, which can under-count.
	Before map[Ref]Item
	// After holds the items written by UpdateItem and by the Update actions of a
	// TransactWriteItems, as they were just after it. Nil means unknown: the model
	// then takes ReturnValues ALL_NEW, or else the item before.
	After map[Ref]Item
	// Evaluated holds the items a Query or Scan evaluated, as stored in the table or
	// index it read, before any filter or projection. Nil means unknown: the model
	// then bills the items returned.
	Evaluated []Item
}

// Bill returns what r costs by AWS's billing rules (see the package documentation).
// It reports a request naming a table s does not hold, or an operation it does not
// know.
func Bill(s Schema, r Request) (Cost, error) {
	var b bill
	if err := b.of(s, r); err != nil {
		return Cost{}, err
	}
	return b.cost(), nil
}

// of bills r.
func (b *bill) of(s Schema, r Request) error {
	var err error
	switch in := r.Input.(type) {
	case *dynamodb.PutItemInput:
		err = b.putItem(s, r, in)
	case *dynamodb.UpdateItemInput:
		err = b.updateItem(s, r, in)
	case *dynamodb.DeleteItemInput:
		err = b.deleteItem(s, r, in)
	case *dynamodb.BatchWriteItemInput:
		err = b.batchWrite(s, r, in)
	case *dynamodb.TransactWriteItemsInput:
		err = b.transactWrite(s, r, in)
	case *dynamodb.GetItemInput:
		err = b.getItem(s, r, in)
	case *dynamodb.BatchGetItemInput:
		err = b.batchGet(s, r, in)
	case *dynamodb.QueryInput:
		err = b.query(s, r, in)
	case *dynamodb.ScanInput:
		err = b.scan(s, r, in)
	case *dynamodb.DescribeTableInput:
		// Control plane: free.
	default:
		err = fmt.Errorf("costmodel: cannot bill %s (%T)", r.Op, r.Input)
	}
	return err
}

func table(s Schema, name *string) (Table, error) {
	t, ok := s[aws.ToString(name)]
	if !ok {
		return Table{}, fmt.Errorf("costmodel: no schema for table %q", aws.ToString(name))
	}
	return t, nil
}

// before returns the item ref named before r, falling back on what the request's
// response shows (fallback, possibly nil) when r carries no images.
func (r Request) before(ref Ref, fallback Item) Item {
	if r.Before != nil {
		return r.Before[ref]
	}
	if len(fallback) == 0 {
		return nil
	}
	return fallback
}

// after returns the item ref named after an update that found before.
func (r Request) after(ref Ref, returned Item, before Item) Item {
	if r.After != nil {
		return r.After[ref]
	}
	if len(returned) > 0 {
		return returned
	}
	return before
}

// conditionFailed reports whether err is a failed condition of a single-item write,
// and the item it returns (with ReturnValuesOnConditionCheckFailure ALL_OLD).
func conditionFailed(err error) (Item, bool) {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf.Item, true
	}
	return nil, false
}

// single bills a single-item write of key in the table name that failed its
// condition (on the item it found), and reports whether the write landed.
func (b *bill) single(s Schema, r Request, name *string, key Item) (Table, Ref, bool, error) {
	t, err := table(s, name)
	if err != nil {
		return t, Ref{}, false, err
	}
	ref := t.Ref(key)
	if item, failed := conditionFailed(r.Err); failed {
		n := WCU(Size(r.before(ref, item)))
		b.write(t.Name, "", n)
		b.tablePart(t, key, false, n)
		return t, ref, false, nil
	}
	return t, ref, r.Err == nil, nil
}

func (b *bill) putItem(s Schema, r Request, in *dynamodb.PutItemInput) error {
	t, ref, landed, err := b.single(s, r, in.TableName, in.Item)
	if !landed {
		return err
	}
	var old Item
	if out, ok := r.Output.(*dynamodb.PutItemOutput); ok && out != nil && in.ReturnValues == types.ReturnValueAllOld {
		old = out.Attributes
	}
	b.itemWrite(t, in.Item, r.before(ref, old), in.Item, 1)
	return nil
}

func (b *bill) updateItem(s Schema, r Request, in *dynamodb.UpdateItemInput) error {
	t, ref, landed, err := b.single(s, r, in.TableName, in.Key)
	if !landed {
		return err
	}
	var old, returned Item
	if out, ok := r.Output.(*dynamodb.UpdateItemOutput); ok && out != nil {
		switch in.ReturnValues {
		case types.ReturnValueAllOld:
			old = out.Attributes
		case types.ReturnValueAllNew:
			returned = out.Attributes
		}
	}
	before := r.before(ref, old)
	after := r.after(ref, returned, before)
	if after == nil {
		after = in.Key // an update always leaves an item
	}
	b.itemWrite(t, in.Key, before, after, 1)
	return nil
}

func (b *bill) deleteItem(s Schema, r Request, in *dynamodb.DeleteItemInput) error {
	t, ref, landed, err := b.single(s, r, in.TableName, in.Key)
	if !landed {
		return err
	}
	var old Item
	if out, ok := r.Output.(*dynamodb.DeleteItemOutput); ok && out != nil && in.ReturnValues == types.ReturnValueAllOld {
		old = out.Attributes
	}
	b.itemWrite(t, in.Key, r.before(ref, old), nil, 1)
	return nil
}

func (b *bill) batchWrite(s Schema, r Request, in *dynamodb.BatchWriteItemInput) error {
	if r.Err != nil {
		return nil
	}
	unprocessed := map[Ref]bool{}
	if out, ok := r.Output.(*dynamodb.BatchWriteItemOutput); ok && out != nil {
		for name, reqs := range out.UnprocessedItems {
			t, err := table(s, &name)
			if err != nil {
				return err
			}
			for _, w := range reqs {
				unprocessed[writeRef(t, w)] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		t, err := table(s, &name)
		if err != nil {
			return err
		}
		for _, w := range in.RequestItems[name] {
			ref := writeRef(t, w)
			if unprocessed[ref] {
				continue
			}
			var after, key Item
			if w.PutRequest != nil {
				after, key = w.PutRequest.Item, w.PutRequest.Item
			} else if w.DeleteRequest != nil {
				key = w.DeleteRequest.Key
			}
			b.itemWrite(t, key, r.before(ref, nil), after, 1)
		}
	}
	return nil
}

func writeRef(t Table, w types.WriteRequest) Ref {
	if w.PutRequest != nil {
		return t.Ref(w.PutRequest.Item)
	}
	if w.DeleteRequest != nil {
		return t.Ref(w.DeleteRequest.Key)
	}
	return Ref{Table: t.Name}
}

func (b *bill) transactWrite(s Schema, r Request, in *dynamodb.TransactWriteItemsInput) error {
	var canceled *types.TransactionCanceledException
	isCanceled := errors.As(r.Err, &canceled)
	if r.Err != nil && !isCanceled {
		return nil
	}
	for i, a := range in.TransactItems {
		var (
			name          *string
			key, put      Item
			update, check bool
		)
		switch {
		case a.Put != nil:
			name, key, put = a.Put.TableName, a.Put.Item, a.Put.Item
		case a.Update != nil:
			name, key, update = a.Update.TableName, a.Update.Key, true
		case a.Delete != nil:
			name, key = a.Delete.TableName, a.Delete.Key
		case a.ConditionCheck != nil:
			name, key, check = a.ConditionCheck.TableName, a.ConditionCheck.Key, true
		default:
			return fmt.Errorf("costmodel: TransactWriteItems action %d is empty", i)
		}
		t, err := table(s, name)
		if err != nil {
			return err
		}
		ref := t.Ref(key)
		var found Item
		if isCanceled && i < len(canceled.CancellationReasons) {
			found = canceled.CancellationReasons[i].Item
		}
		before := r.before(ref, found)
		switch {
		case isCanceled:
			b.write(t.Name, "", WCU(Size(before)))
			b.tablePart(t, key, false, WCU(Size(before)))
		case check:
			b.write(t.Name, "", TransactionFactor*WCU(Size(before)))
			b.tablePart(t, key, false, TransactionFactor*WCU(Size(before)))
		case update:
			after := r.after(ref, nil, before)
			if after == nil {
				after = key
			}
			b.itemWrite(t, key, before, after, TransactionFactor)
		default: // a Put, or a Delete (put is nil)
			b.itemWrite(t, key, before, put, TransactionFactor)
		}
	}
	return nil
}

func (b *bill) getItem(s Schema, r Request, in *dynamodb.GetItemInput) error {
	if r.Err != nil {
		return nil
	}
	t, err := table(s, in.TableName)
	if err != nil {
		return err
	}
	var returned Item
	if out, ok := r.Output.(*dynamodb.GetItemOutput); ok && out != nil {
		returned = out.Item
	}
	item := r.before(t.Ref(in.Key), returned)
	b.read(t.Name, "", RCU(Size(item), aws.ToBool(in.ConsistentRead)))
	return nil
}

func (b *bill) batchGet(s Schema, r Request, in *dynamodb.BatchGetItemInput) error {
	if r.Err != nil {
		return nil
	}
	out, _ := r.Output.(*dynamodb.BatchGetItemOutput)
	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		t, err := table(s, &name)
		if err != nil {
			return err
		}
		unprocessed := map[Ref]bool{}
		returned := map[Ref]Item{}
		if out != nil {
			if u, ok := out.UnprocessedKeys[name]; ok {
				for _, k := range u.Keys {
					unprocessed[t.Ref(k)] = true
				}
			}
			for _, item := range out.Responses[name] {
				returned[t.Ref(item)] = item
			}
		}
		ka := in.RequestItems[name]
		for _, k := range ka.Keys {
			ref := t.Ref(k)
			if unprocessed[ref] {
				continue
			}
			b.read(t.Name, "", RCU(Size(r.before(ref, returned[ref])), aws.ToBool(ka.ConsistentRead)))
		}
	}
	return nil
}

func (b *bill) query(s Schema, r Request, in *dynamodb.QueryInput) error {
	if r.Err != nil {
		return nil
	}
	var returned []Item
	if out, ok := r.Output.(*dynamodb.QueryOutput); ok && out != nil {
		returned = out.Items
	}
	return b.readItems(s, r, in.TableName, in.IndexName, aws.ToBool(in.ConsistentRead), returned)
}

func (b *bill) scan(s Schema, r Request, in *dynamodb.ScanInput) error {
	if r.Err != nil {
		return nil
	}
	var returned []Item
	if out, ok := r.Output.(*dynamodb.ScanOutput); ok && out != nil {
		returned = out.Items
	}
	return b.readItems(s, r, in.TableName, in.IndexName, aws.ToBool(in.ConsistentRead), returned)
}

// readItems bills a Query or Scan of table (or of its index) that evaluated
// r.Evaluated, or returned returned when that is unknown.
func (b *bill) readItems(s Schema, r Request, tableName, indexName *string, consistent bool, returned []Item) error {
	t, err := table(s, tableName)
	if err != nil {
		return err
	}
	index := aws.ToString(indexName)
	if index != "" {
		i := slices.IndexFunc(t.Indexes, func(ix Index) bool { return ix.Name == index })
		if i < 0 {
			return fmt.Errorf("costmodel: table %s has no index %q", t.Name, index)
		}
		if !t.Indexes[i].Local {
			consistent = false // global secondary indexes are eventually consistent
		}
	}
	items := r.Evaluated
	if items == nil {
		items = returned
	}
	n := 0
	for _, item := range items {
		n += Size(item)
	}
	b.read(t.Name, index, RCU(n, consistent))
	return nil
}

// itemWrite bills one item of key written from before to after (nil: no item) on its table
// at factor × WCU of the larger image, and on each index by what changes in the
// entry it stores.
func (b *bill) itemWrite(t Table, key, before, after Item, factor float64) {
	n := factor * WCU(max(Size(before), Size(after)))
	b.write(t.Name, "", n)
	b.tablePart(t, key, after == nil, n)
	for _, ix := range t.Indexes {
		b.write(t.Name, ix.Name, IndexWrite(t, ix, before, after))
		b.indexParts(t, ix, before, after)
	}
}

// IndexWrite returns the write capacity units index ix of table t consumes when an
// item goes from before to after (nil: no item), by the entries it stores for them.
func IndexWrite(t Table, ix Index, before, after Item) float64 {
	old, oldKey := t.entry(ix, before)
	cur, curKey := t.entry(ix, after)
	switch {
	case old == nil && cur == nil:
		return 0
	case old == nil:
		return WCU(Size(cur))
	case cur == nil:
		return WCU(Size(old))
	case oldKey != curKey:
		return WCU(Size(old)) + WCU(Size(cur))
	case sameItem(old, cur):
		return 0
	default:
		return max(WCU(Size(old)), WCU(Size(cur)))
	}
}

// sameItem reports whether a and b hold the same attributes and values. Sets
// compare without order.
func sameItem(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	for name, v := range a {
		w, ok := b[name]
		if !ok || !sameValue(v, w) {
			return false
		}
	}
	return true
}

func sameValue(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(a.Value, b.Value)
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(a.Value, b.Value)
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(a.Value, b.Value, sameValue)
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		return ok && sameItem(a.Value, b.Value)
	}
	return reflect.DeepEqual(a, b)
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// bill accumulates units by table and index, and by partition key when parts is
// not nil.
type bill struct {
	units map[[2]string]*Units
	parts map[partRef]*PartitionWrite
}

func (b *bill) arm(table, index string) *Units {
	if b.units == nil {
		b.units = map[[2]string]*Units{}
	}
	k := [2]string{table, index}
	u, ok := b.units[k]
	if !ok {
		u = &Units{Table: table, Index: index}
		b.units[k] = u
	}
	return u
}

func (b *bill) read(table, index string, n float64) {
	if n != 0 {
		b.arm(table, index).Read += n
	}
}

func (b *bill) write(table, index string, n float64) {
	if n != 0 {
		b.arm(table, index).Write += n
	}
}

func (b *bill) addCost(c Cost) {
	for _, u := range c.Units {
		b.read(u.Table, u.Index, u.Read)
		b.write(u.Table, u.Index, u.Write)
	}
}

func (b *bill) cost() Cost {
	var c Cost
	for _, u := range b.units {
		c.Units = append(c.Units, *u)
		c.Read += u.Read
		c.Write += u.Write
	}
	slices.SortFunc(c.Units, func(x, y Units) int {
		if x.Table != y.Table {
			return strings.Compare(x.Table, y.Table)
		}
		return strings.Compare(x.Index, y.Index)
	})
	return c
}
