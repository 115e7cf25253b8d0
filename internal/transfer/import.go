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
	"github.com/rynodb/rynodb/internal/writes"
)

// PutOf checks a line and returns the write of its entity, before any request:
// ryno's checks of an entity a user writes.
type PutOf func(l *bulk.Line, existing bulk.Existing) (writes.Put, error)

// Import writes the lines of r through the store's write path, each built by
// putOf (see ryno.Client.Import). opts is checked by the caller.
func (m *Mover) Import(ctx context.Context, r io.Reader, opts bulk.ImportOptions, putOf PutOf) (bulk.Report, error) {
	im := &importer{m: m, putOf: putOf, opts: opts, start: time.Now(), pending: map[int]bool{}}
	im.done.Resume = max(opts.From, 1)
	return im.run(ctx, r)
}

// importer is one Import: the lines in flight and what it did.
type importer struct {
	m     *Mover
	putOf PutOf
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
	lines := make(chan importLine, im.m.concurrency)
	var wg sync.WaitGroup
	for range im.m.concurrency {
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
			return errs.Wrap(err, "read line %d", n)
		}
	}
}

// line writes one line, and reports it; the error stops the import.
func (im *importer) line(ctx context.Context, l importLine) error {
	var line bulk.Line
	written, relations, err := false, 0, json.Unmarshal(l.text, &line)
	if err == nil {
		written, relations, err = im.m.importLine(ctx, &line, im.opts.Existing, im.putOf)
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
func (m *Mover) importLine(ctx context.Context, l *bulk.Line, existing bulk.Existing, putOf PutOf) (bool, int, error) {
	p, err := putOf(l, existing)
	if err != nil {
		return false, 0, err
	}
	written := true
	_, err = m.writes.Write(ctx, p)
	var refused *entity.ConditionError
	var taken *entity.UniqueError
	switch {
	case errors.As(err, &taken): // a value another entity holds: the line is refused
		return false, 0, err
	case errors.Is(err, errs.ErrExists) && existing == bulk.Keep:
		same, err := m.completeImported(ctx, l, p)
		if !same || err != nil {
			return false, 0, err
		}
		written = false
	case errors.As(err, &refused) && existing == bulk.Newer:
		return false, 0, nil
	case err != nil:
		return false, 0, err
	}
	if err := m.restoreSequences(ctx, l); err != nil {
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
	updated, _ := item[schema.AttrUpdated].(*types.AttributeValueMemberS)
	return s.Version == l.Version && s.Created.Equal(schema.TruncateTime(l.Created)) &&
		updated != nil && updated.Value == schema.FormatTime(l.Updated), nil
}
