package train

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/jsonl"
)

// StepParts are the metrics an RL step splits its time into (RL's doc):
// sampling, the reward, the scoring forward passes (policy and
// reference) and the update.
var StepParts = []string{"sample_s", "reward_s", "score_s", MetricUpdateS}

// ReadLog reads a run's train_log.jsonl (a file, or the run directory
// holding it), one line per step in step order. A line that is not JSON
// (the last, cut by a kill) is skipped and counted; a step logged twice
// (by a run resumed before resume trimmed the log) counts once, the last.
func ReadLog(path string) (lines []LogLine, skipped int, err error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, logFile)
	}
	byStep := map[int64]int{}
	err = jsonl.ReadFile(path, func(_ int, b []byte) error {
		var l LogLine
		if json.Unmarshal(b, &l) != nil {
			skipped++
			return nil
		}
		if i, ok := byStep[l.Step]; ok {
			lines[i] = l
			return nil
		}
		byStep[l.Step] = len(lines)
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read training log: %w", err)
	}
	slices.SortStableFunc(lines, func(a, b LogLine) int { return cmp.Compare(a.Step, b.Step) })
	return lines, skipped, nil
}

// trimLog keeps the lines of the log at path up to step (a resumed run's
// checkpoint), so that the steps the run redoes are logged once.
func trimLog(path string, step int64) error {
	lines, _, err := ReadLog(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var b []byte
	for _, l := range lines {
		if l.Step > step {
			break
		}
		j, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b = append(append(b, j...), '\n')
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("trim: %w", err)
	}
	return nil
}

// LogSummary condenses a training log: where an RL step's time goes (the
// issue's question: is the reward a small part of a step?) and how its
// metrics move, window by window.
type LogSummary struct {
	Steps int `json:"steps"`
	// StepMedianS is the median over steps of the sum of StepParts.
	StepMedianS float64 `json:"step_median_s"`
	// Parts holds, for each of StepParts present in the log, its median
	// seconds, and its share of the summed step time (so a rare slow
	// reward weighs by what it cost).
	Parts []PartSummary `json:"parts,omitempty"`
	// Windows are the mean of each metric (a step's own, or loss, lr,
	// grad_norm) over consecutive windows of steps.
	Windows []WindowSummary `json:"windows,omitempty"`
}

// PartSummary is one part of a step's time.
type PartSummary struct {
	Name    string  `json:"name"`
	MedianS float64 `json:"median_s"`
	// Share is the part's seconds summed over the run over all parts'.
	Share float64 `json:"share"`
	// MedianShare and MaxShare are the part's share of a single step.
	MedianShare float64 `json:"median_share"`
	MaxShare    float64 `json:"max_share"`
}

// WindowSummary is the mean of metrics over steps First..Last.
type WindowSummary struct {
	First   int64              `json:"first"`
	Last    int64              `json:"last"`
	Metrics map[string]float64 `json:"metrics"`
}

// metric is one of the line's metrics, or its loss, lr or grad_norm.
func (l LogLine) metric(name string) (float64, bool) {
	switch name {
	case "loss":
		return l.Loss, true
	case "lr":
		return l.LR, true
	case "grad_norm":
		return l.GradNorm, true
	}
	v, ok := l.Metrics[name]
	return v, ok
}

// RunLog is one run's log summarised, as `sqlrl train log` prints it:
// the run, the lines a kill left half-written, and the summary.
type RunLog struct {
	Run     string `json:"run"`
	Skipped int    `json:"skipped_lines,omitempty"`
	LogSummary
}

// SummarizeRun reads run's log (a run directory or its train_log.jsonl)
// and summarises it (Summarize); a log without steps is an error.
func SummarizeRun(run string, window int, metrics []string) (*RunLog, error) {
	lines, skipped, err := ReadLog(run)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no steps logged", run)
	}
	return &RunLog{Run: run, Skipped: skipped, LogSummary: Summarize(lines, window, metrics)}, nil
}

// Summarize condenses the lines of ReadLog into a LogSummary, with the
// means of metrics over windows of window steps (<= 0: no windows).
func Summarize(lines []LogLine, window int, metrics []string) LogSummary {
	sum := LogSummary{Steps: len(lines)}

	var totals []float64
	var timed []LogLine
	for _, l := range lines {
		t, ok := 0.0, true
		for _, p := range StepParts {
			v, has := l.Metrics[p]
			ok = ok && has
			t += v
		}
		if ok && t > 0 {
			timed = append(timed, l)
			totals = append(totals, t)
		}
	}
	if len(timed) > 0 {
		sum.StepMedianS = median(totals)
		var all float64
		for _, t := range totals {
			all += t
		}
		for _, p := range StepParts {
			var secs, shares []float64
			var tot float64
			for i, l := range timed {
				v := l.Metrics[p]
				secs = append(secs, v)
				shares = append(shares, v/totals[i])
				tot += v
			}
			sum.Parts = append(sum.Parts, PartSummary{Name: p, MedianS: median(secs), Share: tot / all,
				MedianShare: median(shares), MaxShare: slices.Max(shares)})
		}
	}

	if window > 0 {
		for i := 0; i < len(lines); {
			// windows by step number, so that they line up across runs:
			// steps 1-100, 101-200, ...
			lo := (lines[i].Step - 1) / int64(window) * int64(window)
			w := WindowSummary{First: lo + 1, Metrics: map[string]float64{}}
			n := map[string]int{}
			for ; i < len(lines) && lines[i].Step <= lo+int64(window); i++ {
				for _, m := range metrics {
					if v, ok := lines[i].metric(m); ok {
						w.Metrics[m] += v
						n[m]++
					}
				}
			}
			w.Last = lines[i-1].Step // a last window ends where the run does
			for m, c := range n {
				w.Metrics[m] /= float64(c)
			}
			sum.Windows = append(sum.Windows, w)
		}
	}
	return sum
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Markdown prints the summary as two tables, the step's time and the
// windows, under a line naming the run.
func (s LogSummary) Markdown(name string, metrics []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d steps", name, s.Steps)
	if len(s.Parts) > 0 {
		fmt.Fprintf(&b, ", median step %.3g s", s.StepMedianS)
	}
	b.WriteString("\n")
	if len(s.Parts) > 0 {
		b.WriteString("\n| part | median s | median share of a step | share of the run's time | largest share of a step |\n|---|---|---|---|---|\n")
		for _, p := range s.Parts {
			fmt.Fprintf(&b, "| %s | %.3g | %s | %s | %s |\n", strings.TrimSuffix(p.Name, "_s"), p.MedianS,
				percent(p.MedianShare), percent(p.Share), percent(p.MaxShare))
		}
	}
	if len(s.Windows) > 0 {
		b.WriteString("\n| steps |")
		for _, m := range metrics {
			b.WriteString(" " + m + " |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(metrics)) + "\n")
		for _, w := range s.Windows {
			fmt.Fprintf(&b, "| %d-%d |", w.First, w.Last)
			for _, m := range metrics {
				if v, ok := w.Metrics[m]; ok {
					fmt.Fprintf(&b, " %.4g |", v)
				} else {
					b.WriteString(" - |")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func percent(x float64) string {
	if x > 0 && x < 0.001 {
		return fmt.Sprintf("%.2g%%", 100*x)
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}
