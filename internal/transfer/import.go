package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/writes"
)

// PutOf checks a line and returns the write of its entity, before any request:
// ryno's checks of an entity a user writes.
type PutOf func(l *bulk.Line, existing bulk.Existing) (writes.Put, error)

// Import writes the lines of r through the store's write path, each built by
// putOf (see ryno.Client.Import). opts is checked by the caller.
func (m *Mover) Import(ctx context.Context, r io.Reader, opts bulk.ImportOptions, putOf PutOf) (bulk.Report, error) {
	im := &importer{m: m, putOf: putOf, opts: opts, start: time.Now(), pending: map[int]bool{},
		fresh: m.core.Batch.Shared(), held: heldKeys{by: map[store.Key]chan struct{}{}}}
	im.done.Resume = max(opts.From, 1)
	return im.run(ctx, r)
}

// importer is one Import: the lines in flight and what it did.
type importer struct {
	m     *Mover
	putOf PutOf
	opts  bulk.ImportOptions
	start time.Time
	// fresh sends the batches of new entities: at most MaxConcurrency requests
	// at once, whatever the workers.
	fresh *batching.Engine
	held  heldKeys // the entities chunks in flight write as plain items

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

// run reads the lines of r and writes them with Options.MaxConcurrency workers
// (a quarter as many for an exclusive import), one chunk of lines each at a time.
func (im *importer) run(ctx context.Context, r io.Reader) (bulk.Report, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	workers := im.m.concurrency
	if im.opts.Exclusive {
		// A chunk fills the requests in flight alone; a few more overlap its reads
		// with another's writes. More would only hold more lines in memory.
		workers = max(2, workers/2)
	}
	chunks := make(chan []importLine)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range chunks {
				if err := im.chunk(ctx, c); err != nil {
					cancel(err)
				}
			}
		})
	}
	readErr := im.readLines(ctx, r, chunks)
	close(chunks)
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

// chunkLines is how many lines an exclusive import writes together: their entities
// are one BatchGetItem, and their items fill BatchWriteItem requests.
const chunkLines = 50

// readLines sends the lines of r from opts.From on, in chunks (of one line but
// for an exclusive import), until r ends or ctx does.
func (im *importer) readLines(ctx context.Context, r io.Reader, out chan<- []importLine) error {
	size := 1
	if im.opts.Exclusive {
		size = chunkLines
	}
	var chunk []importLine
	send := func() bool {
		if len(chunk) == 0 {
			return true
		}
		select {
		case out <- chunk:
			chunk = nil
			return true
		case <-ctx.Done():
			return false
		}
	}
	br := bufio.NewReaderSize(r, 64<<10) // a longer line is read in several
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(text)) > 0 && n >= im.opts.From {
			im.mu.Lock()
			im.pending[n], im.read = true, n
			im.mu.Unlock()
			if chunk = append(chunk, importLine{n: n, text: text}); len(chunk) == size && !send() {
				return nil
			}
		}
		if err == io.EOF {
			send()
			return nil
		}
		if err != nil {
			return errs.Wrap(err, "read line %d", n)
		}
	}
}

// chunk writes the lines of c, the new entities of an exclusive import together
// and the others one at a time; the error stops the import.
func (im *importer) chunk(ctx context.Context, c []importLine) error {
	parsed := make([]*parsedLine, 0, len(c))
	for _, l := range c {
		pl := im.parse(l)
		if pl.err != nil {
			if err := im.finish(ctx, pl, false); err != nil {
				return err
			}
			continue
		}
		parsed = append(parsed, pl)
	}
	if !im.opts.Exclusive {
		return im.oneByOne(ctx, parsed)
	}
	// The entities this chunk holds are released as each is written, before any
	// line waits for another chunk's: no two chunks wait for each other.
	own, others := im.held.hold(parsed)
	defer im.held.release(own)
	slow, err := im.m.writeFresh(ctx, im.fresh, own)
	if err != nil {
		return err
	}
	for _, pl := range own {
		if pl.fresh != nil {
			im.held.release([]*parsedLine{pl})
			if err := im.finish(ctx, pl, true); err != nil {
				return err
			}
		}
	}
	if err := im.oneByOne(ctx, slow); err != nil {
		return err
	}
	im.held.release(own)
	return im.oneByOne(ctx, others)
}

// oneByOne writes each line of ls through the store's write path, once the chunk
// holding its entity, if another does, is done.
func (im *importer) oneByOne(ctx context.Context, ls []*parsedLine) error {
	for _, pl := range ls {
		if err := im.held.wait(ctx, pl); err != nil {
			return nil // cut off: the line stays pending
		}
		var written bool
		written, pl.err = im.m.importLine(ctx, &pl.line, im.opts.Existing, pl.put)
		if err := im.finish(ctx, pl, written); err != nil {
			return err
		}
	}
	return nil
}

// parsedLine is a line read and checked, or refused.
type parsedLine struct {
	importLine
	line  bulk.Line
	put   writes.Put
	fresh *writes.Fresh // its items, once written so
	err   error
	after chan struct{} // closed once the chunk holding its entity is done with it
	holds chan struct{} // its entity, held while its chunk writes it (see heldKeys)
}

// parse reads and checks l, before any request.
func (im *importer) parse(l importLine) *parsedLine {
	pl := &parsedLine{importLine: l}
	if pl.err = json.Unmarshal(l.text, &pl.line); pl.err == nil {
		pl.put, pl.err = im.putOf(&pl.line, im.opts.Existing)
	}
	return pl
}

// finish reports pl done: written, kept as stored, or refused (pl.err). The error
// of a refused line stops the import unless SkipBadLines.
func (im *importer) finish(ctx context.Context, pl *parsedLine, written bool) error {
	if ctx.Err() != nil {
		return nil // cut off: the line stays pending, and Resume before it
	}
	var lerr error
	if pl.err != nil {
		lerr = &bulk.LineError{Line: pl.n, Key: pl.line.Key, Err: pl.err}
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	delete(im.pending, pl.n)
	im.done.Lines++
	switch {
	case lerr != nil:
		im.done.Bad++
		if len(im.done.Errors) < bulk.MaxErrors {
			im.done.Errors = append(im.done.Errors, lerr)
		}
	case written:
		im.done.Written++
		im.done.Relations += relationsOf(&pl.line)
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

// relationsOf counts the objects of l's lists.
func relationsOf(l *bulk.Line) int {
	n := 0
	for _, objects := range l.Lists {
		n += len(objects)
	}
	return n
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

// importLine writes the entity of l as p, built from l, and reports whether it
// did (false: kept as stored).
func (m *Mover) importLine(ctx context.Context, l *bulk.Line, existing bulk.Existing, p writes.Put) (bool, error) {
	written := true
	_, err := m.writes.Write(ctx, p)
	var refused *entity.ConditionError
	var taken *entity.UniqueError
	switch {
	case errors.As(err, &taken): // a value another entity holds: the line is refused
		return false, err
	case errors.Is(err, errs.ErrExists) && existing == bulk.Keep:
		same, err := m.completeImported(ctx, l, p)
		if !same || err != nil {
			return false, err
		}
		written = false
	case errors.As(err, &refused) && existing == bulk.Newer:
		return false, nil
	case err != nil:
		return false, err
	}
	return written, m.restoreSequences(ctx, l)
}

// completeImported completes the lists of an entity kept as stored when it is the
// one l holds, written by an import of l cut off before its lists were, and
// reports whether it is (its sequences are then restored too): a line written
// twice is written once. An entity stored otherwise is left as it is.
func (m *Mover) completeImported(ctx context.Context, l *bulk.Line, p writes.Put) (same bool, err error) {
	if len(l.Lists) == 0 && len(l.Sequences) == 0 {
		return false, nil // nothing written after the entity: it is complete
	}
	same, err = m.importedBefore(ctx, l)
	if !same || err != nil || len(l.Lists) == 0 {
		return same, err
	}
	p.Mode, p.Version, p.Restore.Same = writes.PutUpdate, l.Version, true
	_, err = m.writes.Write(ctx, p)
	return true, err
}

// restoreSequences sets the sequences of l's entity at their last numbers.
func (m *Mover) restoreSequences(ctx context.Context, l *bulk.Line) error {
	for name, last := range l.Sequences {
		if err := m.writes.RestoreSequence(ctx, l.Key, name, last); err != nil {
			return err
		}
	}
	return nil
}

// importedBefore reports whether the entity of l is stored as l holds it: written
// by an import of l that was cut off.
func (m *Mover) importedBefore(ctx context.Context, l *bulk.Line) (bool, error) {
	item, err := m.core.GetEntity(ctx, l.Key, batching.ReadOptions{Consistent: true})
	if err != nil || item == nil {
		return false, err
	}
	s, err := m.core.ReadStored(l.Key, item)
	if err != nil {
		return false, nil
	}
	updated, _ := store.UpdatedOf(item).(*types.AttributeValueMemberS)
	return s.Version == l.Version && s.Created.Equal(schema.TruncateTime(l.Created)) &&
		updated != nil && updated.Value == schema.FormatTime(l.Updated), nil
}

// heldKeys are the entities that chunks of an exclusive import in flight write as
// plain items: no other line of the file may write one meanwhile, or the items of
// both would mix.
type heldKeys struct {
	mu sync.Mutex
	by map[store.Key]chan struct{} // closed when released
}

// hold takes the entities of ls that no chunk holds, and returns their lines and
// the others: a line naming an entity a line before it in ls names, or that
// another chunk holds (it waits for that chunk, see wait).
func (h *heldKeys) hold(ls []*parsedLine) (own, others []*parsedLine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	mine := make(map[store.Key]bool, len(ls))
	for _, pl := range ls {
		k := pl.put.Key
		if mine[k] { // twice in this chunk: after the first
			others = append(others, pl)
			continue
		}
		if ch, taken := h.by[k]; taken {
			pl.after = ch
			others = append(others, pl)
			continue
		}
		mine[k] = true
		h.by[k] = make(chan struct{})
		pl.holds = h.by[k]
		own = append(own, pl)
	}
	return own, others
}

// release gives up the entities the lines of ls hold, if they still do.
func (h *heldKeys) release(ls []*parsedLine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, pl := range ls {
		if pl.holds != nil {
			delete(h.by, pl.put.Key)
			close(pl.holds)
			pl.holds = nil
		}
	}
}

// wait waits until the chunk holding pl's entity, if another did, is done.
func (h *heldKeys) wait(ctx context.Context, pl *parsedLine) error {
	if pl.after == nil {
		return nil
	}
	select {
	case <-pl.after:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
