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

func TestFuncReport(t *testing.T) {
	var got [][2]int
	record := Func(func(done, total int) { got = append(got, [2]int{done, total}) })
	var buf bytes.Buffer
	bar := New(&buf, "work", 4)
	tests := []struct {
		name string
		f    Func
		want int // reports recorded after the call
	}{
		{"nil Func reports nothing", nil, 0},
		{"nil bar's Func reports nothing", (*Bar)(nil).Func(), 0},
		{"a Func is called", record, 1},
		{"a bar's Func moves the bar", bar.Func(), 1},
	}
	for _, tc := range tests {
		tc.f.Report(4, 4)
		if len(got) != tc.want {
			t.Errorf("%s: %d reports recorded, want %d", tc.name, len(got), tc.want)
		}
	}
	bar.Finish()
	if !strings.Contains(buf.String(), "4/4") {
		t.Errorf("bar after its Func reported 4 of 4:\n%s", buf.String())
	}
}

// Stages starts each stage's bar at its first report, with its total, and
// ends it when the next stage starts or Finish is called; a stage that
// never reports draws nothing.
func TestStages(t *testing.T) {
	var buf bytes.Buffer
	s := NewStages(&buf)
	s.Start("idle")
	plan := s.Start("plan")
	plan(1, 2)
	plan(2, 2)
	fix := s.Start("fix")
	fix(3, 3)
	s.Finish()
	s.Finish()
	out := buf.String()
	if strings.Contains(out, "idle") || !strings.Contains(out, "plan [") || !strings.Contains(out, "2/2") || !strings.Contains(out, "fix [") || !strings.Contains(out, "3/3") {
		t.Errorf("stages drew\n%s", out)
	}
	var none *Stages
	none.Start("x").Report(1, 1)
	none.Finish()
}
