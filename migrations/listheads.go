package migrations

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// buildListHeads is the data step of schema version 2. Since that version every write
// of a relationship list keeps a head beside its entries (version, next free
// position, count, digest) and a marker per object (its positions), and takes a list
// without a head for an empty one. Lists written earlier have entries only: their
// first write would reuse positions and add objects already there. The step builds
// the markers and the head of every list that has entries and no head (and deletes
// the markers of such a list that no entry accounts for).
//
// It scans the relationship entries table once. A single-segment Scan returns the
// items of one partition together, in sort key order (heads, markers, entries), so
// the step holds one subject's lists at a time, whatever the size of the table; a
// subject split across pages carries over. The Scan is consistent, so every entry
// written before the step started is seen.
//
// Lists that have a head are left alone: their writers keep them exact. For the
// others the markers are written first and the head last, on the condition that no
// head exists. Until its head is there a list still reads as one to build, so a run
// cut off anywhere is completed by the next; and a head a writer created meanwhile
// wins. Markers that are already right are not written again, so a run after a
// complete one writes nothing.
func buildListHeads(ctx context.Context, api API, names schema.Names) error {
	b := &headBuilder{w: &listWriter{api: api, table: names.Relationships}}
	pages := dynamodb.NewScanPaginator(api, &dynamodb.ScanInput{
		TableName:      aws.String(names.Relationships),
		ConsistentRead: aws.Bool(true),
	})
	for pages.HasMorePages() {
		out, err := pages.NextPage(ctx)
		if err != nil {
			return errs.Wrap(err, "scan %s", names.Relationships)
		}
		for _, item := range out.Items {
			if err := b.add(ctx, item); err != nil {
				return err
			}
		}
	}
	if err := b.endSubject(ctx); err != nil {
		return err
	}
	return b.w.flush(ctx)
}

// headBuilder gathers the items of one subject as the scan returns them, and queues
// what the subject's lists lack once the scan moves on to the next subject.
type headBuilder struct {
	w       *listWriter
	subject string                 // the _subject_key of the items gathered
	heads   map[string]bool        // the _predicate_key of each of its heads
	lists   map[string]*legacyList // its lists with entries or markers and no head seen, by predicate
}

// add takes the next item of the scan. The entries and markers of a list whose head
// was seen are not kept: heads sort first, and such lists are left alone.
func (b *headBuilder) add(ctx context.Context, item map[string]types.AttributeValue) error {
	subject, sortKey := stringAttr(item, schema.AttrSubjectKey), stringAttr(item, schema.AttrPredicateKey)
	if b.lists == nil || subject != b.subject {
		if err := b.endSubject(ctx); err != nil {
			return err
		}
		b.subject, b.heads, b.lists = subject, map[string]bool{}, map[string]*legacyList{}
	}
	switch {
	case strings.HasPrefix(sortKey, schema.ListHeadPrefix):
		b.heads[sortKey] = true
	case strings.HasPrefix(sortKey, schema.ListMarkerPrefix):
		b.addMarker(sortKey, item)
	case sortKey > schema.EntriesStart:
		b.addEntry(sortKey, item)
	}
	return nil
}

func (b *headBuilder) hasHead(predicate string) bool { return b.heads[schema.ListHeadKey(predicate)] }

// addEntry adds an entry to its list. An item that does not read as an entry, or
// whose keys are not those of the entry it holds, is not one the store wrote: it
// counts for no list, and is left where it is.
func (b *headBuilder) addEntry(sortKey string, item map[string]types.AttributeValue) {
	e, err := relationships.FromItem(item)
	if err != nil || e.Subject.String() != b.subject ||
		schema.PredicateKey(e.Predicate, e.Index, e.Object.Type, e.Object.ID) != sortKey || b.hasHead(e.Predicate) {
		return
	}
	l := b.list(e.Predicate)
	l.subject = e.Subject
	l.positions[e.Object] = append(l.positions[e.Object], e.Index)
	l.count++
	l.next = max(l.next, e.Index+1)
	l.digest = l.digest.Plus(e)
}

// addMarker records a stored marker, to write only the markers that differ and to
// delete those of objects without entries: a marker left by a cut-off run whose
// entries were deleted since would contradict the list once its head exists.
// Markers are recorded under their sort key, which names the object they are for.
func (b *headBuilder) addMarker(sortKey string, item map[string]types.AttributeValue) {
	predicate := stringAttr(item, schema.AttrPredicate)
	if !strings.HasPrefix(sortKey, schema.ListMarkersPrefix(predicate)) || b.hasHead(predicate) {
		return // not a marker the store wrote, or one of a list left alone
	}
	m, err := relationships.MarkerFromItem(entity.Key{}, item)
	if err != nil {
		m.Positions = nil // rewritten or deleted
	}
	b.list(predicate).markers[sortKey] = m.Positions
}

func (b *headBuilder) list(predicate string) *legacyList {
	l := b.lists[predicate]
	if l == nil {
		l = &legacyList{predicate: predicate, positions: map[entity.Key][]int{}, markers: map[string][]int{}}
		b.lists[predicate] = l
	}
	return l
}

// endSubject queues the markers and the head of each of the subject's lists that has
// no head.
func (b *headBuilder) endSubject(ctx context.Context) error {
	for predicate, l := range b.lists {
		if b.hasHead(predicate) {
			continue
		}
		for _, req := range l.markerWrites(b.subject) {
			if err := b.w.add(ctx, req); err != nil {
				return err
			}
		}
		if l.count > 0 {
			if err := b.w.addHead(ctx, l.head()); err != nil {
				return err
			}
		}
	}
	return nil
}

// legacyList is what the scan found of one list without a head.
type legacyList struct {
	subject   entity.Key // from its entries; zero when it has none
	predicate string

	positions map[entity.Key][]int // the positions of each object's entries
	count     int                  // the number of entries
	next      int                  // above every position
	digest    relationships.Digest // of the entries

	markers map[string][]int // the stored markers' positions, by sort key
}

// markerWrites returns the writes that make the stored markers those of the entries:
// a put of each marker missing or different, a delete of each marker whose object
// has no entry.
func (l *legacyList) markerWrites(subjectKey string) []types.WriteRequest {
	var reqs []types.WriteRequest
	want := map[string]bool{}
	for o, positions := range l.positions {
		slices.Sort(positions)
		key := schema.ListMarkerKey(l.predicate, o.Scope, o.Type, o.ID)
		want[key] = true
		if stored, ok := l.markers[key]; ok && slices.Equal(stored, positions) {
			continue
		}
		item := relationships.MarkerItem(l.subject, l.predicate, o, positions)
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for key := range l.markers {
		if !want[key] {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{
				schema.AttrSubjectKey:   &types.AttributeValueMemberS{Value: subjectKey},
				schema.AttrPredicateKey: &types.AttributeValueMemberS{Value: key},
			}}})
		}
	}
	return reqs
}

// head returns the head item of the list as its entries stand: at version 1, as the
// first write of a list leaves it.
func (l *legacyList) head() listHead {
	item := relationships.RawAttributes(l.subject, l.predicate)
	maps.Copy(item, relationships.HeadPrimaryKey(l.subject, l.predicate))
	item[schema.AttrVersion] = intNumber(1)
	item[schema.AttrNext] = intNumber(l.next)
	item[schema.AttrCount] = intNumber(l.count)
	item[schema.AttrDigest] = &types.AttributeValueMemberN{Value: l.digest.String()}
	return listHead{item: item, name: fmt.Sprintf("%s -%s->", l.subject, l.predicate)}
}

// A listHead is a head item to write, with the list's name for errors.
type listHead struct {
	item map[string]types.AttributeValue
	name string
}

// maxBatchWrites is the most writes one BatchWriteItem request takes.
const maxBatchWrites = 25

// headWriters bounds the heads written at once. A table of many small lists needs
// one conditional PutItem per list, which BatchWriteItem cannot send.
const headWriters = 8

// Backoff between sends of the writes DynamoDB leaves unprocessed, as it does when
// throttled.
const (
	firstRetryDelay = 50 * time.Millisecond
	maxRetryDelay   = 5 * time.Second
)

// listWriter sends marker writes in batches, and each head only after the markers of
// its list: markers queued before a head are sent before it.
type listWriter struct {
	api   API
	table string
	batch []types.WriteRequest
	heads []listHead
}

func (w *listWriter) add(ctx context.Context, req types.WriteRequest) error {
	w.batch = append(w.batch, req)
	if len(w.batch) < maxBatchWrites {
		return nil
	}
	return w.flush(ctx)
}

func (w *listWriter) addHead(ctx context.Context, h listHead) error {
	w.heads = append(w.heads, h)
	if len(w.heads) < maxBatchWrites {
		return nil
	}
	return w.flush(ctx)
}

// flush sends the queued markers, then the queued heads.
func (w *listWriter) flush(ctx context.Context) error {
	if err := w.writeBatch(ctx, w.batch); err != nil {
		return err
	}
	w.batch = nil
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(headWriters)
	for _, h := range w.heads {
		g.Go(func() error { return w.putHead(gctx, h) })
	}
	w.heads = nil
	return g.Wait()
}

// writeBatch sends reqs, then what DynamoDB leaves unprocessed, with exponential
// backoff, until every write is done or ctx ends.
func (w *listWriter) writeBatch(ctx context.Context, reqs []types.WriteRequest) error {
	for delay := firstRetryDelay; len(reqs) > 0; delay = min(2*delay, maxRetryDelay) {
		out, err := w.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{w.table: reqs},
		})
		if err != nil {
			return errs.Wrap(err, "write list markers to %s", w.table)
		}
		if reqs = out.UnprocessedItems[w.table]; len(reqs) == 0 {
			return nil
		}
		if err := sleep(ctx, delay); err != nil {
			return errs.Wrap(err, "write list markers to %s: %d unprocessed", w.table, len(reqs))
		}
	}
	return nil
}

// putHead writes a head unless the list has one: a head a writer created since the
// scan describes the list as it now stands.
func (w *listWriter) putHead(ctx context.Context, h listHead) error {
	_, err := w.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                aws.String(w.table),
		Item:                     h.item,
		ConditionExpression:      aws.String("attribute_not_exists(#v)"),
		ExpressionAttributeNames: map[string]string{"#v": schema.AttrVersion},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return errs.Wrap(err, "write the head of %s", h.name)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

func stringAttr(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func intNumber(n int) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
}
