package progress

import (
	"io"
	"sync"
)

// Stages draws one bar per stage of work on w, each started at its
// stage's first report, when the total is known. A nil *Stages reports
// nothing.
type Stages struct {
	w   io.Writer
	mu  sync.Mutex
	bar *Bar
}

// NewStages draws the stages' bars on w.
func NewStages(w io.Writer) *Stages { return &Stages{w: w} }

// Start finishes the previous stage's bar and returns the report of the
// stage labelled label.
func (s *Stages) Start(label string) Func {
	if s == nil {
		return nil
	}
	s.Finish()
	var bar *Bar
	return func(done, total int) {
		s.mu.Lock()
		if bar == nil {
			bar = New(s.w, label, total)
			s.bar = bar
		}
		s.mu.Unlock()
		bar.Set(done)
	}
}

// Finish ends the current stage's bar.
func (s *Stages) Finish() {
	if s == nil {
		return
	}
	s.mu.Lock()
	bar := s.bar
	s.bar = nil
	s.mu.Unlock()
	bar.Finish()
}
