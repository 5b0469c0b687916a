package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/progress"
)

// Options configure Run, the scoring of predictions already loaded;
// Config is the whole evaluation that Evaluate builds them for.
type Options struct {
	// Workers score questions in parallel; default GOMAXPROCS. SQLite work
	// is CPU-bound, so more workers than cores only adds contention.
	Workers int
	// Progress, when set, is called after each question (from any worker).
	Progress progress.Func
	// VESIterations > 0 times each EX-correct pair that many times (BIRD's
	// script uses 100) and reports VES and R-VES.
	VESIterations int
	// Ks are the k of pass@k to report when predictions carry candidates.
	Ks []int
	// Levels orders the difficulty levels in the report.
	Levels []string
}

// QuestionResult is the verdict on one question.
type QuestionResult struct {
	Index      int    `json:"index"`
	QuestionID int    `json:"question_id"`
	DBID       string `json:"db_id"`
	Difficulty string `json:"difficulty,omitempty"`
	Pred       string `json:"pred"`
	Outcome
	// TimeRatio is gold time / pred time for VES (0 when incorrect or not
	// measured).
	TimeRatio float64 `json:"time_ratio,omitempty"`
	// Candidates and CandidatesCorrect count the K samples, for pass@K.
	Candidates        int `json:"candidates,omitempty"`
	CandidatesCorrect int `json:"candidates_correct,omitempty"`
}

// LevelStats aggregate one difficulty level (or the total).
type LevelStats struct {
	Level    string  `json:"level"`
	Count    int     `json:"count"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"accuracy"`
	SoftF1   float64 `json:"soft_f1"`
	VES      float64 `json:"ves,omitempty"`
	RVES     float64 `json:"r_ves,omitempty"`
	// PassAtK maps "pass@k" (and "oracle") to the mean over questions with
	// candidates.
	PassAtK map[string]float64 `json:"pass_at_k,omitempty"`
}

// Report is the result of Run.
type Report struct {
	Mode    Mode           `json:"mode"`
	Levels  []LevelStats   `json:"levels"`
	Total   LevelStats     `json:"total"`
	Classes map[string]int `json:"classes"`
	// SoftF1 says whether the levels' soft_f1 was computed.
	SoftF1    bool             `json:"soft_f1_computed"`
	Questions []QuestionResult `json:"questions"`
	Elapsed   time.Duration    `json:"elapsed_ns"`
}

// ReadReport reads a Report written as JSON (sqlrl eval --json, an
// experiment's eval.json), for comparing it with another (Compare).
func ReadReport(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	if err := json.Unmarshal(raw, rep); err != nil {
		return nil, fmt.Errorf("read %s: %w (want a report of sqlrl eval --json)", path, err)
	}
	return rep, nil
}

// Run scores preds (aligned with examples; nil means no prediction) with s.
// A gold query that cannot open its database stops the run with an error:
// its questions would otherwise count as wrong in a score that is printed.
func Run(ctx context.Context, s *Scorer, examples []dataset.Example, preds []*dataset.Prediction, opts Options) (*Report, error) {
	if len(preds) != len(examples) {
		return nil, fmt.Errorf("eval: %d predictions for %d questions", len(preds), len(examples))
	}
	start := time.Now()
	results := make([]QuestionResult, len(examples))
	order := goldFirstOrder(examples)
	var done atomic.Int64
	err := parallel.For(ctx, len(order), opts.Workers, func(ctx context.Context, k int) error {
		i := order[k]
		results[i] = scoreOne(ctx, s, &examples[i], preds[i], opts)
		if err := goldNoDatabase(&examples[i], &results[i].Outcome); err != nil {
			return err
		}
		opts.Progress.Report(int(done.Add(1)), len(examples))
		return nil
	})
	if err != nil {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("eval interrupted after %d of %d questions: %w", done.Load(), len(examples), err)
	}
	r := &Report{Mode: s.Mode, Questions: results, Classes: map[string]int{}, SoftF1: s.SoftF1 && s.Mode == ModeBIRD}
	r.summarise(opts)
	r.Elapsed = time.Since(start)
	return r, nil
}

// goldFirstOrder schedules one question of each distinct gold query before
// any second one. Questions sharing a gold wait for its single execution;
// scheduled side by side they would leave a core idle behind a slow gold,
// while spread out every gold runs in parallel with other work.
func goldFirstOrder(examples []dataset.Example) []int {
	groups := map[string][]int{}
	var keys []string
	for i, ex := range examples {
		k := cacheKey(ex.DBID, ex.SQL)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	order := make([]int, 0, len(examples))
	for round := 0; len(order) < len(examples); round++ {
		for _, k := range keys {
			if g := groups[k]; round < len(g) {
				order = append(order, g[round])
			}
		}
	}
	return order
}

func scoreOne(ctx context.Context, s *Scorer, ex *dataset.Example, p *dataset.Prediction, opts Options) QuestionResult {
	qr := QuestionResult{Index: ex.Index, QuestionID: ex.QuestionID, DBID: ex.DBID, Difficulty: ex.Difficulty}
	if p == nil {
		qr.Outcome = Outcome{Class: ClassMissing, Error: "no prediction for this question"}
		return qr
	}
	qr.Pred = p.SQL
	qr.Outcome = s.Score(ctx, ex.DBID, ex.SQL, p.SQL)
	if len(p.Candidates) > 0 {
		qr.Candidates = len(p.Candidates)
		for _, c := range p.Candidates {
			if c == p.SQL {
				if qr.Correct {
					qr.CandidatesCorrect++
				}
				continue
			}
			if s.Score(ctx, ex.DBID, ex.SQL, c).Correct {
				qr.CandidatesCorrect++
			}
		}
	}
	if qr.Correct && opts.VESIterations > 0 {
		qr.TimeRatio = s.timeRatio(ctx, ex.DBID, ex.SQL, p.SQL, opts.VESIterations)
	}
	return qr
}

// timeRatio measures gold and prediction alternately, uncached, as BIRD's
// evaluation_ves.py does.
func (s *Scorer) timeRatio(ctx context.Context, db, gold, pred string, n int) float64 {
	gt := make([]float64, 0, n)
	pt := make([]float64, 0, n)
	for range n {
		p, err := s.Engine.Query(ctx, db, pred)
		if err != nil {
			return 0
		}
		g, err := s.Engine.Query(ctx, db, gold)
		if err != nil {
			return 0
		}
		pt = append(pt, p.Elapsed.Seconds())
		gt = append(gt, g.Elapsed.Seconds())
	}
	return VESRatio(gt, pt)
}

func (r *Report) summarise(opts Options) {
	levels := opts.Levels
	byLevel := map[string][]*QuestionResult{}
	for i := range r.Questions {
		q := &r.Questions[i]
		r.Classes[q.Class]++
		byLevel[q.Difficulty] = append(byLevel[q.Difficulty], q)
	}
	known := map[string]bool{}
	for _, l := range levels {
		known[l] = true
	}
	var extra []string
	for l := range byLevel {
		if !known[l] {
			extra = append(extra, l)
		}
	}
	sort.Strings(extra)
	levels = append(append([]string(nil), levels...), extra...)
	all := make([]*QuestionResult, len(r.Questions))
	for i := range r.Questions {
		all[i] = &r.Questions[i]
	}
	for _, l := range levels {
		if len(byLevel[l]) == 0 && !known[l] {
			continue
		}
		name := l
		if name == "" {
			name = "unlabelled"
		}
		r.Levels = append(r.Levels, stats(name, byLevel[l], opts))
	}
	r.Total = stats("total", all, opts)
}

func stats(level string, qs []*QuestionResult, opts Options) LevelStats {
	st := LevelStats{Level: level, Count: len(qs)}
	if len(qs) == 0 {
		return st
	}
	ratios := make([]float64, 0, len(qs))
	var f1 float64
	var withCands int
	pass := map[string]float64{}
	for _, q := range qs {
		if q.Correct {
			st.Correct++
		}
		f1 += q.SoftF1
		ratios = append(ratios, q.TimeRatio)
		if q.Candidates > 0 {
			withCands++
			for _, k := range opts.Ks {
				pass[fmt.Sprintf("pass@%d", k)] += PassAtK(q.Candidates, q.CandidatesCorrect, k)
			}
			pass["oracle"] += 0 // present even when no question has a hit
			if q.CandidatesCorrect > 0 {
				pass["oracle"]++
			}
		}
	}
	st.Accuracy = 100 * float64(st.Correct) / float64(len(qs))
	st.SoftF1 = 100 * f1 / float64(len(qs))
	if opts.VESIterations > 0 {
		st.VES = VES(ratios)
		st.RVES = RVES(ratios)
	}
	if withCands > 0 {
		st.PassAtK = map[string]float64{}
		for k, v := range pass {
			st.PassAtK[k] = 100 * v / float64(withCands)
		}
	}
	return st
}
