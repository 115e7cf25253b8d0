package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// MaxSegments bounds ExportOptions.Segments.
const MaxSegments = 1000

// Export writes the entities opts chooses to w as lines of package bulk (see
// ryno.Client.Export).
func (m *Mover) Export(ctx context.Context, w io.Writer, opts bulk.ExportOptions) (bulk.Report, error) {
	segments, err := segmentsOf(opts)
	if err != nil {
		return bulk.Report{}, err
	}
	x := &exporter{m: m, w: w, opts: opts, start: time.Now()}
	err = batching.Parallel(ctx, segments, segments, func(ctx context.Context, segment int) error {
		return m.core.ScanPages(ctx, exportScan(m.core.Names.Entities, segment, segments), func(items []map[string]types.AttributeValue) error {
			return x.page(ctx, items)
		})
	})
	done := x.report()
	if err == nil && done.Bad > 0 {
		err = fmt.Errorf("%d entities could not be read and are not in the export, such as %w", done.Bad, done.Errors[0])
	}
	return done, err
}

// exportSegments checks opts and returns its segments.
func segmentsOf(opts bulk.ExportOptions) (int, error) {
	for i, t := range opts.Types {
		if err := schema.ValidateScopeType(t.Scope, t.Name); err != nil {
			return 0, errs.Wrap(err, "ExportOptions.Types[%d]", i)
		}
	}
	switch {
	case opts.Segments == 0:
		return 4, nil
	case opts.Segments < 0 || opts.Segments > MaxSegments:
		return 0, store.Invalid("ExportOptions.Segments", fmt.Sprint(opts.Segments), fmt.Sprintf("must be between 1 and %d", MaxSegments))
	}
	return opts.Segments, nil
}

// exportScan is the consistent Scan of one segment of the entities table.
func exportScan(table string, segment, segments int) *dynamodb.ScanInput {
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	if segments > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(segment)), aws.Int32(int32(segments))
	}
	return in
}

// exporter is one Export: where it writes and what it did.
type exporter struct {
	m     *Mover
	w     io.Writer
	opts  bulk.ExportOptions
	start time.Time

	mu   sync.Mutex // the writer, done and Progress
	done bulk.Report
}

// page exports the entities of one page of the scan.
func (x *exporter) page(ctx context.Context, items []map[string]types.AttributeValue) error {
	var lines []*bulk.Line
	var unreadable []error
	for _, item := range items {
		l, ok, err := x.lineOf(item)
		switch {
		case err != nil:
			unreadable = append(unreadable, err)
		case ok:
			lines = append(lines, l)
		}
	}
	err := batching.Parallel(ctx, len(lines), x.m.concurrency, func(ctx context.Context, i int) error {
		return x.readLists(ctx, lines[i])
	})
	if err != nil {
		return err
	}
	var buf []byte
	relations := 0
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			return errs.Wrap(err, "export %s", l.Key)
		}
		buf = append(append(buf, b...), '\n')
		for _, objects := range l.Lists {
			relations += len(objects)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.w.Write(buf); err != nil {
		return errs.Wrap(err, "export")
	}
	x.done.Lines += len(lines)
	x.done.Relations += relations
	x.done.Bad += len(unreadable)
	for _, err := range unreadable[:min(len(unreadable), bulk.MaxErrors-len(x.done.Errors))] {
		x.done.Errors = append(x.done.Errors, err)
	}
	if x.opts.Progress != nil {
		x.opts.Progress(x.reportLocked())
	}
	return nil
}

// lineOf is the line of an entity item the export chooses; false for any other
// item (the store's own, one being deleted or expired, of another scope or type).
// An entity item it cannot read is an *entity.UnreadableError naming it, which the
// export counts and reports instead of writing a line.
func (x *exporter) lineOf(item map[string]types.AttributeValue) (*bulk.Line, bool, error) {
	k, err := store.EntityKeyOf(item)
	if err != nil || x.m.core.Hidden(item) || !x.chooses(k) {
		return nil, false, nil
	}
	unreadable := func(err error) (*bulk.Line, bool, error) {
		return nil, false, &entity.UnreadableError{Items: []entity.UnreadableItem{{Key: k, Err: err}}}
	}
	s, err := x.m.core.ReadStored(k, item)
	if err != nil {
		return unreadable(err)
	}
	l := &bulk.Line{Key: k, Version: s.Version, Attributes: map[string]types.AttributeValue{}}
	if l.Created, err = timeOf(item, schema.AttrCreated); err != nil {
		return unreadable(err)
	}
	updated := schema.AttrUpdated
	if _, sharded := item[schema.AttrShardUpdated]; sharded {
		updated = schema.AttrShardUpdated
	}
	if l.Updated, err = timeOf(item, updated); err != nil {
		return unreadable(err)
	}
	l.Expires = store.ExpiryTime(entitystate.ExpiresOf(item))
	for name, av := range item {
		switch {
		case name == schema.AttrMeta:
			if m, ok := av.(*types.AttributeValueMemberM); ok {
				l.Meta = m.Value
			}
		case !strings.HasPrefix(name, schema.ReservedPrefix):
			l.Attributes[name] = av
		}
	}
	return l, true, nil
}

// chooses reports whether the export holds the entities of k's scope and type.
func (x *exporter) chooses(k store.Key) bool {
	if len(x.opts.Scopes) == 0 && len(x.opts.Types) == 0 {
		return true
	}
	return slices.Contains(x.opts.Scopes, k.Scope) || slices.Contains(x.opts.Types, k.TypeOf())
}

// readLists reads the lists and sequences of l's entity: one Query.
func (x *exporter) readLists(ctx context.Context, l *bulk.Line) error {
	entries, sequences, err := x.m.lists.ReadListsAndSequences(ctx, l.Key)
	if err != nil {
		return errs.Wrap(err, "export %s", l.Key)
	}
	relationships.SortOrdered(entries)
	if lists := relationships.ByPredicate(entries); len(lists) > 0 {
		l.Lists = make(map[string][]store.Key, len(lists))
		for _, p := range slices.Sorted(maps.Keys(lists)) {
			l.Lists[p] = slices.Clone(lists[p])
		}
	}
	if len(sequences) > 0 {
		l.Sequences = sequences
	}
	return nil
}

func (x *exporter) report() bulk.Report {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.reportLocked()
}

func (x *exporter) reportLocked() bulk.Report {
	r := x.done
	r.Elapsed = time.Since(x.start)
	return r
}

// timeOf reads the timestamp attribute name of item, in the store's layout or any
// other RFC 3339 one.
func timeOf(item map[string]types.AttributeValue, name string) (time.Time, error) {
	v, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return time.Time{}, fmt.Errorf("attribute %s is %T, want a time", name, item[name])
	}
	t, err := schema.ReadTime(v.Value)
	if err != nil {
		return t, fmt.Errorf("attribute %s: %w", name, err)
	}
	return t, nil
}
