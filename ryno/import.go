package ryno

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/writes"
)

// Import reads JSON Lines of bulk.Line from r, as Export writes them, and writes
// each entity through the store's write path: its attributes, Meta, expiry,
// Created, Updated and version as the line holds them, its index entries and
// unique values as the indexes this client registers emit them, its lists (sets
// and ordered sets as Options declares them), and its sequences at their last
// numbers. An entity that exists already is kept, overwritten or replaced when the
// line is newer, as opts.Existing says.
//
// Each line is checked before any request of its own and written whole or not at
// all: a line refused (unreadable, a bad key, a unique value another entity holds)
// is a *bulk.LineError naming it, which stops the import (lines after it that were
// in flight may be written; Report.Resume is at or before it), or with
// SkipBadLines is counted and reported. Lines are written up to Options.MaxConcurrency at once;
// Report.Resume says where a run cut off starts again (ImportOptions.From), and a
// line written twice is written once. Each line costs what a Create (or Set) of
// the entity with ReplaceLists costs, and a conditional UpdateItem per sequence.
func (c *Client) Import(ctx context.Context, r io.Reader, opts bulk.ImportOptions) (_ bulk.Report, err error) {
	ctx, call, err := c.begin(ctx, "Import")
	defer call.end(&err)
	if err != nil {
		return bulk.Report{}, err
	}
	switch {
	case opts.Existing < bulk.Keep || opts.Existing > bulk.Newer:
		return bulk.Report{}, invalid("ImportOptions.Existing", fmt.Sprint(int(opts.Existing)), "must be Keep, Overwrite or Newer")
	case opts.From < 0:
		return bulk.Report{}, invalid("ImportOptions.From", fmt.Sprint(opts.From), "must not be negative")
	}
	im := &importer{c: c, opts: opts, start: time.Now(), pending: map[int]bool{}}
	im.done.Resume = max(opts.From, 1)
	return im.run(ctx, r)
}

// importer is one Import: the lines in flight and what it did.
type importer struct {
	c     *Client
	opts  bulk.ImportOptions
	start time.Time

	mu      sync.Mutex
	done    bulk.Report
	pending map[int]bool // lines read and not yet done
	read    int          // the last line read
}

// importLine is one line read, numbered from 1.
type importLine struct {
	n    int
	text []byte
}

// run reads the lines of r and writes them with Options.MaxConcurrency workers.
func (im *importer) run(ctx context.Context, r io.Reader) (bulk.Report, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lines := make(chan importLine, im.c.opts.MaxConcurrency)
	var wg sync.WaitGroup
	for range im.c.opts.MaxConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range lines {
				if err := im.line(ctx, l); err != nil {
					cancel(err)
				}
			}
		}()
	}
	readErr := im.readLines(ctx, r, lines)
	close(lines)
	wg.Wait()
	err := context.Cause(ctx)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil && readErr == nil {
		err = ctx.Err()
	}
	if readErr != nil && (err == nil || errors.Is(err, context.Canceled)) {
		err = readErr
	}
	return im.report(), err
}

// readLines sends the lines of r from opts.From on, until r ends or ctx does.
func (im *importer) readLines(ctx context.Context, r io.Reader, out chan<- importLine) error {
	br := bufio.NewReaderSize(r, 64<<10) // a longer line is read in several
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(text)) > 0 && n >= im.opts.From {
			im.mu.Lock()
			im.pending[n], im.read = true, n
			im.mu.Unlock()
			select {
			case out <- importLine{n: n, text: text}:
			case <-ctx.Done():
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return wrap(err, "read line %d", n)
		}
	}
}

// line writes one line, and reports it; the error stops the import.
func (im *importer) line(ctx context.Context, l importLine) error {
	var line bulk.Line
	written, relations, err := false, 0, json.Unmarshal(l.text, &line)
	if err == nil {
		written, relations, err = im.c.importLine(ctx, &line, im.opts.Existing)
	}
	if ctx.Err() != nil {
		return nil // cut off: the line stays pending, and Resume before it
	}
	var lerr error
	if err != nil {
		lerr = &bulk.LineError{Line: l.n, Key: line.Key, Err: err}
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	delete(im.pending, l.n)
	im.done.Lines++
	switch {
	case lerr != nil:
		im.done.Bad++
		if len(im.done.Errors) < bulk.MaxErrors {
			im.done.Errors = append(im.done.Errors, lerr)
		}
	case written:
		im.done.Written++
		im.done.Relations += relations
	default:
		im.done.Kept++
	}
	im.advanceResume()
	if im.opts.Progress != nil {
		im.opts.Progress(im.reportLocked())
	}
	if lerr != nil && !im.opts.SkipBadLines {
		return lerr
	}
	return nil
}

// advanceResume moves Resume to the first line not done.
func (im *importer) advanceResume() {
	for im.done.Resume <= im.read && !im.pending[im.done.Resume] {
		im.done.Resume++
	}
}

func (im *importer) report() bulk.Report {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.reportLocked()
}

func (im *importer) reportLocked() bulk.Report {
	r := im.done
	r.Errors = append([]error(nil), r.Errors...)
	r.Elapsed = time.Since(im.start)
	return r
}

// importLine writes the entity of l, and reports whether it did (false: kept as
// stored) and the objects of its lists.
func (c *Client) importLine(ctx context.Context, l *bulk.Line, existing bulk.Existing) (bool, int, error) {
	p, err := c.importPut(l, existing)
	if err != nil {
		return false, 0, err
	}
	written := true
	_, err = c.writes.Write(ctx, p)
	var refused *ConditionError
	var taken *UniqueError
	switch {
	case errors.As(err, &taken): // a value another entity holds: the line is refused
		return false, 0, err
	case errors.Is(err, ErrExists) && existing == bulk.Keep:
		same, err := c.completeImported(ctx, l, p)
		if !same || err != nil {
			return false, 0, err
		}
		written = false
	case errors.As(err, &refused) && existing == bulk.Newer:
		return false, 0, nil
	case err != nil:
		return false, 0, err
	}
	if err := c.restoreSequences(ctx, l); err != nil {
		return false, 0, err
	}
	relations := 0
	for _, objects := range l.Lists {
		relations += len(objects)
	}
	return written, relations, nil
}

// completeImported completes the lists of an entity kept as stored when it is the
// one l holds, written by an import of l cut off before its lists were, and
// reports whether it is (its sequences are then restored too): a line written
// twice is written once. An entity stored otherwise is left as it is.
func (c *Client) completeImported(ctx context.Context, l *bulk.Line, p writes.Put) (same bool, err error) {
	if len(l.Lists) == 0 && len(l.Sequences) == 0 {
		return false, nil // nothing written after the entity: it is complete
	}
	same, err = c.importedBefore(ctx, l)
	if !same || err != nil || len(l.Lists) == 0 {
		return same, err
	}
	p.Mode, p.Version, p.Restore.Same = writes.PutUpdate, l.Version, true
	_, err = c.writes.Write(ctx, p)
	return true, err
}

// restoreSequences sets the sequences of l's entity at their last numbers.
func (c *Client) restoreSequences(ctx context.Context, l *bulk.Line) error {
	for name, last := range l.Sequences {
		if err := c.writes.RestoreSequence(ctx, l.Key, name, last); err != nil {
			return err
		}
	}
	return nil
}

// importedBefore reports whether the entity of l is stored as l holds it: written
// by an import of l that was cut off.
func (c *Client) importedBefore(ctx context.Context, l *bulk.Line) (bool, error) {
	item, err := c.core.GetEntity(ctx, l.Key, batching.ReadOptions{Consistent: true})
	if err != nil || item == nil {
		return false, err
	}
	s, err := c.core.ReadStored(l.Key, item)
	if err != nil {
		return false, nil
	}
	updated, _ := item[schema.AttrUpdated].(*types.AttributeValueMemberS)
	return s.Version == l.Version && s.Created.Equal(schema.TruncateTime(l.Created)) &&
		updated != nil && updated.Value == schema.FormatTime(l.Updated), nil
}

// importPut checks l and returns the write of its entity, before any request.
func (c *Client) importPut(l *bulk.Line, existing bulk.Existing) (writes.Put, error) {
	if err := l.Key.Validate(); err != nil {
		return writes.Put{}, err
	}
	switch {
	case l.Version < 1:
		return writes.Put{}, invalid("version", fmt.Sprint(l.Version), "must be 1 or more")
	case l.Created.IsZero() || l.Updated.IsZero():
		return writes.Put{}, invalid("created", "", "created and updated must be set")
	}
	base, err := importBase(l)
	if err != nil {
		return writes.Put{}, err
	}
	for name, last := range l.Sequences {
		if err := validateSequence(l.Key, name); err != nil {
			return writes.Put{}, err
		}
		if last < 0 {
			return writes.Put{}, invalid("sequences."+name, fmt.Sprint(last), "must not be negative")
		}
	}
	o := writeOptions{lists: l.Lists}
	sets, err := c.takeSets(l.Key, &o)
	if err != nil {
		return writes.Put{}, err
	}
	if err := c.validateLists(l.Key, o.lists); err != nil {
		return writes.Put{}, err
	}
	var lists map[string][]Key
	if o.lists != nil {
		lists = make(map[string][]Key, len(o.lists))
		for p, objects := range o.lists {
			lists[p] = ownKeys(objects)
		}
	}
	p := writes.Put{Mode: writes.PutCreate, Key: l.Key, Base: base, Lists: lists, Sets: sets,
		Restore: &writes.Restored{Created: l.Created, Updated: l.Updated, Version: l.Version}}
	switch existing {
	case bulk.Overwrite:
		p.Mode = writes.PutSet
	case bulk.Newer:
		p.Mode, p.Cond = writes.PutSet, olderThan(l.Version)
	}
	return p, nil
}

// importBase is the item of l's entity without the store's bookkeeping.
func importBase(l *bulk.Line) (map[string]types.AttributeValue, error) {
	item := itemKey(l.Key)
	item[schema.AttrScope] = str(l.Key.Scope)
	item[schema.AttrType] = str(l.Key.Type)
	for name, av := range l.Attributes {
		if err := schema.ValidateAttributeName(name); err != nil {
			return nil, err
		}
		if err := numbers.ValidateAll("attributes."+name, av); err != nil {
			return nil, err
		}
		item[name] = av
	}
	if len(l.Meta) > 0 {
		meta := &types.AttributeValueMemberM{Value: l.Meta}
		if err := numbers.ValidateAll("meta", meta); err != nil {
			return nil, err
		}
		item[schema.AttrMeta] = meta
	}
	if !l.Expires.IsZero() {
		if err := validateExpiry("expires", l.Expires); err != nil {
			return nil, err
		}
		item[schema.AttrExpires] = store.ExpiresAttr(l.Expires)
	}
	return item, nil
}

// olderThan is the condition of an import that replaces only older entities: none
// stored, or one at a lower version.
type olderThan int64

func (v olderThan) Expression(time.Time) expression.ConditionBuilder {
	version := expression.Name(schema.AttrVersion)
	return expression.AttributeNotExists(version).Or(version.LessThan(expression.Value(store.AttrN(int64(v)))))
}

func (v olderThan) String() string { return fmt.Sprintf("version below %d", int64(v)) }
