// Package progress draws a progress bar for long work on a terminal, and
// falls back to a few plain lines when the output is a file or a pipe, so
// CI logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Func is the one shape of a progress report: done of total units of work
// are finished. Work may call it from any goroutine and as often as it
// likes; a nil Func reports nothing (Report). Stages of work that report
// separately take a Func per stage.
type Func func(done, total int)

// Report calls f when it is set.
func (f Func) Report(done, total int) {
	if f != nil {
		f(done, total)
	}
}

// Func returns a report that moves the bar (its total stays the one given
// to New). A nil bar gives a nil Func.
func (b *Bar) Func() Func {
	if b == nil {
		return nil
	}
	return func(done, _ int) { b.Set(done) }
}

// Bar reports progress of a known amount of work. It is safe for
// concurrent use; Set may be called from many workers.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int
	done     int
	start    time.Time
	last     time.Time
	tty      bool
	finished bool
	lastPct  int
}

// New starts a bar writing to w (usually os.Stderr). A nil w disables it.
func New(w io.Writer, label string, total int) *Bar {
	b := &Bar{w: w, label: label, total: total, start: time.Now(), lastPct: -1}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	return b
}

// Set records that done units of work are finished.
func (b *Bar) Set(done int) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if done > b.done {
		b.done = done
	}
	now := time.Now()
	if b.tty {
		if now.Sub(b.last) < 100*time.Millisecond && b.done < b.total {
			return
		}
		b.last = now
		fmt.Fprintf(b.w, "\r%s", b.line(now))
		return
	}
	// Non-terminal: a line at every 25%.
	pct := 0
	if b.total > 0 {
		pct = 100 * b.done / b.total / 25 * 25
	}
	if pct != b.lastPct && b.done < b.total {
		b.lastPct = pct
		fmt.Fprintln(b.w, b.line(now))
	}
}

// Add records n more units of work finished.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	d := b.done + n
	b.mu.Unlock()
	b.Set(d)
}

func (b *Bar) line(now time.Time) string {
	el := now.Sub(b.start)
	frac := 0.0
	if b.total > 0 {
		frac = float64(b.done) / float64(b.total)
	}
	const width = 30
	fill := int(frac * width)
	eta := ""
	if b.done > 0 && b.done < b.total {
		rem := time.Duration(float64(el) * (1/frac - 1))
		eta = " eta " + rem.Round(time.Second).String()
	}
	rate := float64(b.done) / el.Seconds()
	return fmt.Sprintf("%s [%s%s] %d/%d %.0f/s %s%s   ", b.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
		b.done, b.total, rate, el.Round(100*time.Millisecond), eta)
}

// Finish draws the final state and ends the line.
func (b *Bar) Finish() {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.tty {
		fmt.Fprintf(b.w, "\r%s\n", b.line(time.Now()))
	} else {
		fmt.Fprintln(b.w, b.line(time.Now()))
	}
}
