package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rynodb/rynodb/bulk"
)

// progressLine shows one line of progress on a terminal, rewritten in place, and
// nothing elsewhere.
type progressLine struct {
	w     io.Writer // nil when not a terminal
	shown bool
}

// progressLine returns the progress line of a command: on standard error when that
// is a terminal.
func (r *runner) progressLine() *progressLine {
	if r.isTerminal != nil && r.isTerminal(r.stderr) {
		return &progressLine{w: r.stderr}
	}
	return &progressLine{}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func (p *progressLine) show(line string) {
	if p.w != nil {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
	}
}

func (p *progressLine) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// transferProgress shows the progress of an export or import: on a terminal a bar,
// the throughput and the time left, rewritten in place at most ten times a second;
// elsewhere a plain line every plainEvery.
type transferProgress struct {
	line        *progressLine
	plain       io.Writer // nil on a terminal
	verb, unit  string
	total       int64 // what done counts up to; 0 when unknown
	start, last time.Time
}

// plainEvery is how often a progress line is printed where standard error is not a
// terminal, from the first update on.
const plainEvery = 10 * time.Second

func (r *runner) transferProgress(verb, unit string, total int64) *transferProgress {
	p := &transferProgress{line: r.progressLine(), verb: verb, unit: unit, total: total, start: time.Now()}
	if p.line.w == nil {
		p.plain = r.stderr
	}
	return p
}

// update shows done (of total) with the counts of rep.
func (p *transferProgress) update(done int64, rep bulk.Report) {
	now := time.Now()
	if p.plain != nil {
		if now.Sub(p.last) >= plainEvery {
			p.last = now
			fmt.Fprintln(p.plain, p.status(done, rep, now))
		}
		return
	}
	if now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.line.show(p.bar(done) + " " + p.status(done, rep, now))
	}
}

// status is "imported 1,200 lines, 300 lines/s, 12s left".
func (p *transferProgress) status(done int64, rep bulk.Report, now time.Time) string {
	elapsed := now.Sub(p.start)
	s := fmt.Sprintf("%s %d %s", p.verb, rep.Lines, p.unit)
	if secs := elapsed.Seconds(); secs > 0 {
		s += fmt.Sprintf(", %.0f %s/s", float64(rep.Lines)/secs, p.unit)
	}
	if rep.Bad > 0 {
		s += fmt.Sprintf(", %d refused", rep.Bad)
	}
	if p.total > 0 && done > 0 && done < p.total {
		left := time.Duration(float64(elapsed) * float64(p.total-done) / float64(done))
		s += fmt.Sprintf(", %s left", left.Round(time.Second))
	}
	return s
}

// bar is "[=======>      ]  45%", or nothing when the total is unknown.
func (p *transferProgress) bar(done int64) string {
	if p.total <= 0 {
		return ""
	}
	const width = 24
	frac := min(float64(done)/float64(p.total), 1)
	filled := int(frac * width)
	b := strings.Repeat("=", filled)
	if filled < width {
		b += ">" + strings.Repeat(" ", width-filled-1)
	}
	return fmt.Sprintf("[%s] %3.0f%%", b, frac*100)
}

func (p *transferProgress) clear() { p.line.clear() }
