package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// TestNonTerminalWritesFewLines checks that a bar writing to a file logs a
// line per quarter, not one per update, and ends with the total.
func TestNonTerminalWritesFewLines(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "work", 1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 250 {
				mu.Lock()
				done++
				d := done
				mu.Unlock()
				b.Set(d)
			}
		}()
	}
	wg.Wait()
	b.Finish()
	b.Finish() // idempotent
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 2 || len(lines) > 6 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "1000/1000") || !strings.HasPrefix(last, "work [") {
		t.Errorf("last line %q", last)
	}
}

func TestNilBarIsSafe(t *testing.T) {
	var b *Bar
	b.Set(1)
	b.Add(1)
	b.Finish()
	New(nil, "x", 1).Set(1)
}
