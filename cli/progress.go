package cli

import (
	"fmt"
	"io"
	"os"
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
