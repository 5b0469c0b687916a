package askserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/confidence"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// CalibrateOptions are `sqlrl serve calibrate`'s settings.
type CalibrateOptions struct {
	// Bench is the benchmark split to ask (BIRD layout: its databases
	// under Bench.DBRoot); Split names it in the report.
	Bench *dataset.Benchmark
	Split string
	// Generator writes the SQL, as a config's "generator" (Native or
	// OpenAI); its Samples and SampleTemperature are the samples drawn.
	Generator GeneratorConfig
	// Gen, when set, writes the SQL instead of Generator's model (tests).
	Gen SQLGenerator
	// Concurrency is the number of questions asked at once (the native
	// batcher decodes them together).
	Concurrency int
	// Target and MinCoverage are the goal of "likely right": right at
	// least Target of the time, holding at least MinCoverage of the right
	// answers.
	Target, MinCoverage float64
	// Tune also chooses the rule that meets the goal best on these
	// answers (confidence.Tune) and reports it.
	Tune bool
	// Out is the folder report.json and report.md are written to.
	Out string
	// Command, Commit, CPU: what ran, built from what, and where, for
	// the report.
	Command, Commit, CPU, Kernel string
	Threads                      int
	Progress                     io.Writer
	Log                          *slog.Logger
}

// Calibrate asks every question of o.Bench through the server's ask path
// (a Server over the split's databases with o.Generator, a throwaway
// store), scores each answer's SQL against the gold with the evaluator's
// EX, and writes report.json and report.md to o.Out: per confidence
// level the answers' count, share, accuracy and coverage of the right
// answers, the reliability and signal tables, and (Tune) the rule chosen
// on this split.
func Calibrate(ctx context.Context, o CalibrateOptions) (*confidence.Report, error) {
	if o.Bench == nil || len(o.Bench.Examples) == 0 {
		return nil, errors.New("calibrate: no questions")
	}
	if o.Out == "" {
		return nil, errors.New("calibrate: no output folder")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	tmp, err := os.MkdirTemp("", "sqlrl-calibrate-")
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	defer os.RemoveAll(tmp)
	cfg, err := calibrateConfig(o, filepath.Join(tmp, "serve.json"))
	if err != nil {
		return nil, err
	}
	s, err := New(ctx, cfg, Options{Generator: o.Gen, Threads: o.Threads, Log: o.Log})
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	defer s.Close()
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: o.Bench.DBRoot, Limits: sqlexec.Limits{MaxBytes: sqlexec.DefaultMaxResultBytes}})
	defer eng.Close()
	scorer := &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD}
	exs := o.Bench.Examples
	bar := progress.New(o.Progress, "calibrate", len(exs))
	var done atomic.Int64
	start := time.Now()
	outs, err := parallel.Map(ctx, len(exs), max(o.Concurrency, 1), func(ctx context.Context, i int) (confidence.Outcome, error) {
		ex := exs[i]
		out, err := s.askDirect(ctx, askRequest{DB: ex.DBID, Question: ex.Question, Evidence: ex.Evidence})
		if err != nil {
			return confidence.Outcome{}, fmt.Errorf("question %d: %w", ex.QuestionID, err)
		}
		oc := confidence.Outcome{QuestionID: ex.QuestionID, DB: ex.DBID, Difficulty: ex.Difficulty, Level: out.Confidence.Level,
			SQL: out.SQL, Signals: out.signals}
		if out.SQL == "" {
			oc.Class = out.Error.Class
		} else {
			v := scorer.Score(ctx, ex.DBID, ex.SQL, out.SQL)
			oc.Correct, oc.Class = v.Correct, v.Class
		}
		bar.Set(int(done.Add(1)))
		return oc, nil
	})
	bar.Set(len(exs))
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	r := &confidence.Report{Command: o.Command, Commit: o.Commit, CPU: o.CPU, Kernel: o.Kernel, Date: time.Now().UTC().Format(time.RFC3339),
		Model: s.gen.Name(), Benchmark: o.Bench.Dir, Split: o.Split, Samples: cfg.Generator.SampleCount(), Temp: cfg.Generator.SampleTemperature,
		Rule: s.rule, Seconds: time.Since(start).Seconds(), Answers: outs, ByDifficulty: map[string]confidence.Calibration{}}
	byServer := func(oc confidence.Outcome) confidence.Level { return oc.Level }
	r.Calibration = confidence.Measure(outs, byServer, o.Target, o.MinCoverage)
	for _, d := range o.Bench.DifficultyLevels() {
		var part []confidence.Outcome
		for _, oc := range outs {
			if oc.Difficulty == d {
				part = append(part, oc)
			}
		}
		if len(part) > 0 {
			r.Difficulties = append(r.Difficulties, d)
			r.ByDifficulty[d] = confidence.Measure(part, byServer, o.Target, o.MinCoverage)
		}
	}
	if o.Tune {
		if t, ok := confidence.Tune(outs, o.Target, o.MinCoverage); ok {
			r.Tuned = &t
		}
	}
	return r, writeCalibration(o.Out, r)
}

// askDirect runs the ask handler on req as POST /api/ask would, and
// returns its answer with the signals it was judged from.
func (s *Server) askDirect(ctx context.Context, req askRequest) (AskResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return AskResponse{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(s.cfg.Limits.RequestTimeout))
	defer cancel()
	out, err := s.ask(ctx, httptest.NewRequestWithContext(ctx, "POST", "/api/ask", bytes.NewReader(body)))
	if err != nil {
		return AskResponse{}, err
	}
	return out.(AskResponse), nil
}

// calibrateConfig is the config of the server Calibrate asks: the split's
// databases, o's generator, a store in path's folder, and deadlines long
// enough that a busy machine does not turn answers into timeouts.
func calibrateConfig(o CalibrateOptions, path string) (*Config, error) {
	c := map[string]any{"store": filepath.Join(filepath.Dir(path), "feedback.sqlite"), "generator": o.Generator,
		"limits": map[string]any{"request_timeout": "10m"}}
	dbs := map[string]any{}
	for _, ex := range o.Bench.Examples {
		if _, ok := dbs[ex.DBID]; !ok {
			p, err := filepath.Abs(filepath.Join(o.Bench.DBRoot, ex.DBID, ex.DBID+".sqlite"))
			if err != nil {
				return nil, fmt.Errorf("calibrate: database %s: %w", ex.DBID, err)
			}
			dbs[ex.DBID] = map[string]string{"sqlite": p}
		}
	}
	c["databases"] = dbs
	if o.Generator.Timeout == 0 {
		o.Generator.Timeout = Duration(5 * time.Minute)
		c["generator"] = o.Generator
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	return LoadConfig(path)
}

// writeCalibration writes report.json and report.md to dir.
func writeCalibration(dir string, r *confidence.Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n')); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "report.md"), r.WriteMarkdown); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}
