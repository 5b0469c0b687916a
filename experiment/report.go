package experiment

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/significance"
	"github.com/sqlrl/sqlrl/train"
)

// Levels are BIRD's difficulties and the total, in table order.
var Levels = []string{"simple", "moderate", "challenging", "total"}

// Machine is where the experiment ran.
type Machine struct {
	CPUs int `json:"cpus"`
	// CPU is the processor's model name (Linux's /proc/cpuinfo; empty
	// where unknown). It belongs in a report because a training run's
	// outcome depends on it: another CPU picks other BLAS kernels, whose
	// float rounding sends the same seed down another path (the same
	// SFT-75 seeds measured 5.9 points apart in mean dev EX on two
	// machines, docs/rl.md).
	CPU    string `json:"cpu,omitempty"`
	GOARCH string `json:"goarch"`
	GOOS   string `json:"goos"`
	// Kernel is the gemm kernel (nn.Kernel: OpenBLAS's corename, or go):
	// with the CPU, what decides a run's float rounding. Commit is the
	// sqlrl build's (commit, "+modified" for a dirty tree; empty for a
	// build without version control information, such as go test's).
	Kernel string `json:"kernel,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// ThisMachine describes the computer running the experiment.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GOARCH: runtime.GOARCH, GOOS: runtime.GOOS, Kernel: nn.Kernel(), Commit: buildCommit()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPU = cpuModel(string(b))
	}
	return m
}

// buildCommit is the commit this binary was built from (Go's embedded
// version control information), "+modified" when the tree had changes.
// A build without it (GOFLAGS=-buildvcs=false, go test) gives the commit
// of the git work tree the command runs in, marked "(work tree)": such a
// binary is most often run from the checkout it was built in. "" when
// neither is known.
func buildCommit() string {
	if c := stampedCommit(); c != "" {
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	rev := strings.TrimSpace(string(out))
	if err != nil || rev == "" {
		return ""
	}
	dirty := ""
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		dirty = "+modified"
	}
	return rev[:min(12, len(rev))] + dirty + " (work tree)"
}

// stampedCommit is the commit Go embedded in the binary, "" without one.
func stampedCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+modified"
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(12, len(rev))] + dirty
}

// cpuModel is the first "model name" of a /proc/cpuinfo text, or "".
func cpuModel(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Report is report.json; report.md and the plots are drawn from it.
type Report struct {
	Command string        `json:"command"`
	Machine Machine       `json:"machine"`
	Preset  Preset        `json:"preset"`
	Seeds   []uint64      `json:"seeds"`
	Splits  []string      `json:"splits"`
	Studies []StudyReport `json:"studies"`
	Claims  []Claim       `json:"claims"`
	Runs    []RunRow      `json:"runs"`
	Curves  []Curve       `json:"curves,omitempty"`
	// Comparisons are each trained arm against its SFT start, question by
	// question, per study and split (startComparisons).
	Comparisons []ComparisonRow `json:"comparisons,omitempty"`
	// Protocol is a pre-registered study's (ExecuteStudy): its config's
	// history, the test split's reads, its comparisons and decision.
	Protocol    *Protocol      `json:"protocol,omitempty"`
	WallSeconds float64        `json:"wall_seconds"`
	arms        map[string]Arm // by key, for the claims
}

// StudyReport is one study's tables, one per split.
type StudyReport struct {
	Name     string  `json:"name"`
	Question string  `json:"question"`
	Tables   []Table `json:"tables"`
}

// Table is a study on one split: a row per arm.
type Table struct {
	Split string `json:"split"`
	Rows  []Row  `json:"rows"`
}

// Row is one arm's EX by level over the seeds.
type Row struct {
	Key   string          `json:"key"`
	Label string          `json:"label"`
	Cells map[string]Stat `json:"cells"`
	// Gain is, for a trained arm (RL, or RL merged back), its EX minus its
	// SFT start's seed by seed: the seeds' spread of the gain itself,
	// which the spread of either column hides when the starts differ
	// more between seeds than the training moves them.
	Gain map[string]Stat `json:"gain,omitempty"`
}

// Stat summarises one figure over the seeds that finished: mean, sample
// standard deviation (0 for one seed) and range, in EX points (0-100).
type Stat struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Range is the stat's spread, max - min.
func (s Stat) Range() float64 { return s.Max - s.Min }

func stat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	s := Stat{N: len(xs), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range xs {
		s.Mean += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.Std = math.Sqrt(ss / float64(len(xs)-1))
	}
	return s
}

// RunRow is one run in the report's table of runs.
type RunRow struct {
	Name    string  `json:"name"`
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Steps   int64   `json:"steps,omitempty"`
	Seconds float64 `json:"seconds"`
	Done    bool    `json:"done"`
	// CPU, Kernel and Commit are where and how the run finished
	// (Result's).
	CPU    string `json:"cpu,omitempty"`
	Kernel string `json:"kernel,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Curve is one training run's log over steps: the RL runs' reward mean and
// in-run dev EX (points), for the plots.
type Curve struct {
	Arm    string  `json:"arm"`
	Seed   uint64  `json:"seed"`
	Reward []Point `json:"reward,omitempty"`
	DevEX  []Point `json:"dev_ex,omitempty"`
}

// Point is one step's value.
type Point struct {
	Step  int64   `json:"step"`
	Value float64 `json:"value"`
}

// BuildReport aggregates the finished runs' results (by ID) into tables by
// study, split and level, checks the recipe's claims against them, and
// reads the RL runs' logs (under runsDir) for the curves. The comparisons
// with the arms' starts draw their bootstrap as so says.
func BuildReport(pl *Plan, results map[string]*Result, runsDir, command string, m Machine, so significance.Options) *Report {
	rep := &Report{Command: command, Machine: m, Preset: pl.Preset, Seeds: pl.Seeds, Splits: pl.Splits, arms: map[string]Arm{}}
	for _, st := range pl.Studies {
		for _, a := range st.Arms {
			rep.arms[a.Key] = a
		}
	}
	for _, st := range pl.Studies {
		sr := StudyReport{Name: st.Name, Question: st.Question}
		for _, split := range pl.Splits {
			t := Table{Split: split}
			for _, a := range st.Arms {
				row := Row{Key: a.Key, Label: a.Label, Cells: cells(a, split, results)}
				if start, ok := rep.sftStart(a); ok {
					row.Gain = gains(start, a, split, results)
				}
				t.Rows = append(t.Rows, row)
			}
			sr.Tables = append(sr.Tables, t)
		}
		rep.Studies = append(rep.Studies, sr)
	}
	for _, r := range pl.Runs {
		row := RunRow{Name: r.Name, ID: r.ID, Kind: r.Config.Kind}
		if res := results[r.ID]; res != nil {
			row.Steps, row.Seconds, row.Done, row.CPU, row.Kernel, row.Commit = res.Steps, res.Seconds, true, res.CPU, res.Kernel, res.Commit
		}
		rep.Runs = append(rep.Runs, row)
	}
	// Curves of the algorithms study's arms (all RL arms when it is not
	// run), every seed.
	var curveArms []Arm
	for _, st := range pl.Studies {
		if st.Name == "algorithms" {
			curveArms = st.Arms
		}
	}
	if curveArms == nil {
		seen := map[string]bool{}
		for _, st := range pl.Studies {
			for _, a := range st.Arms {
				if a.Start != "" && !seen[a.Key] {
					seen[a.Key] = true
					curveArms = append(curveArms, a)
				}
			}
		}
	}
	for _, a := range curveArms {
		for _, r := range a.Models {
			if results[r.ID] == nil || r.Config.Kind != KindRL {
				continue
			}
			c, err := readCurve(filepath.Join(runsDir, r.ID, OutDir, "train_log.jsonl"))
			if err != nil {
				continue
			}
			c.Arm, c.Seed = a.Label, r.Config.Seed
			rep.Curves = append(rep.Curves, c)
		}
	}
	rep.Comparisons = startComparisons(rep, pl, runsDir, so)
	rep.Claims = checkClaims(rep)
	return rep
}

// cells is an arm's EX by level on split over the seeds whose evaluation
// finished.
func cells(a Arm, split string, results map[string]*Result) map[string]Stat {
	vals := map[string][]float64{}
	for i := range a.Models {
		for l, v := range modelEX(a, i, split, results) {
			vals[l] = append(vals[l], v)
		}
	}
	return stats(vals)
}

// gains is after's EX minus before's by level on split, seed by seed,
// over the seeds where both evaluations finished.
func gains(before, after Arm, split string, results map[string]*Result) map[string]Stat {
	vals := map[string][]float64{}
	for i, m := range after.Models {
		j := slices.IndexFunc(before.Models, func(b *Run) bool { return b.Config.Seed == m.Config.Seed })
		if j < 0 {
			continue
		}
		b := modelEX(before, j, split, results)
		for l, v := range modelEX(after, i, split, results) {
			if bv, ok := b[l]; ok {
				vals[l] = append(vals[l], v-bv)
			}
		}
	}
	return stats(vals)
}

// modelEX is the EX in points by level of arm a's i-th model on split,
// nil while its evaluation has not finished.
func modelEX(a Arm, i int, split string, results map[string]*Result) map[string]float64 {
	ev := a.Models[i].Evals[split]
	if ev == nil || results[ev.ID] == nil || results[ev.ID].Score == nil {
		return nil
	}
	sc := results[ev.ID].Score
	out := map[string]float64{"total": 100 * sc.EX}
	for _, l := range Levels {
		if l != "total" && sc.Counts[l] > 0 {
			out[l] = 100 * sc.Levels[l]
		}
	}
	return out
}

func stats(vals map[string][]float64) map[string]Stat {
	out := map[string]Stat{}
	for _, l := range Levels {
		if len(vals[l]) > 0 {
			out[l] = stat(vals[l])
		}
	}
	return out
}

// sftStart follows a trained arm's starts (a merge starts from its RL
// arm, an RL arm from its SFT arm) to the SFT arm at the root.
func (rep *Report) sftStart(a Arm) (Arm, bool) {
	if a.Start == "" {
		return Arm{}, false
	}
	for range len(rep.arms) {
		s, ok := rep.arms[a.Start]
		if !ok {
			return Arm{}, false
		}
		if s.Start == "" {
			return s, true
		}
		a = s
	}
	return Arm{}, false
}

// readCurve reads a run's train_log.jsonl: metrics.reward_mean and
// eval.ex by step.
func readCurve(path string) (Curve, error) {
	lines, _, err := train.ReadLog(path)
	if err != nil {
		return Curve{}, err
	}
	var c Curve
	for _, l := range lines {
		if v, ok := l.Metrics["reward_mean"]; ok {
			c.Reward = append(c.Reward, Point{l.Step, v})
		}
		if l.Eval != nil {
			c.DevEX = append(c.DevEX, Point{l.Step, 100 * l.Eval.EX})
		}
	}
	return c, nil
}

// Write writes report.json, report.md and the SVG plots into dir.
func (rep *Report) Write(dir string) error {
	return writeReport(dir, rep, rep.Plots(), rep.Markdown())
}

// writeReport writes a report's JSON, its plots in name order and, last,
// report.md, so that a report.md is only there with what it links to.
func writeReport(dir string, v any, plots map[string][]byte, md []byte) error {
	if err := writeJSON(filepath.Join(dir, "report.json"), v); err != nil {
		return err
	}
	names := make([]string, 0, len(plots))
	for n := range plots {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeFile(filepath.Join(dir, n), plots[n]); err != nil {
			return err
		}
	}
	return writeFile(filepath.Join(dir, "report.md"), md)
}

// writeHeader writes a report.md's title, command line and machine line.
func writeHeader(b *bytes.Buffer, title, command string, m Machine, p Preset, seeds []uint64, splits []string) {
	fmt.Fprintf(b, "# %s\n\n", title)
	fmt.Fprintf(b, "Command: `%s`\n\n", command)
	cpu := ""
	if m.CPU != "" {
		cpu = " (" + m.CPU + ")"
	}
	build := ""
	if m.Kernel != "" {
		build += "; gemm kernel " + m.Kernel
	}
	if m.Commit != "" {
		build += "; sqlrl " + m.Commit
	}
	dev := slices.DeleteFunc(slices.Clone(splits), func(s string) bool { return s == dataset.SplitTest })
	test := ""
	if len(dev) < len(splits) {
		test = "; final evaluation on the sealed test split"
	}
	fmt.Fprintf(b, "Machine: %d CPUs%s, %s/%s%s. Preset %s; seeds %s; dev splits %s%s.\n\n", m.CPUs, cpu, m.GOOS, m.GOARCH, build,
		p.Name, joinSeeds(seeds), strings.Join(dev, ", "), test)
}

// modelText names the SFT model: its preset, or a custom model's shape.
func modelText(s SFTConfig) string {
	if m := s.Model; m != nil {
		return fmt.Sprintf("custom d%d L%d H%d ffn %d", m.Dim, m.Layers, m.Heads, m.Hidden)
	}
	return s.Preset
}

// Markdown renders report.md.
func (rep *Report) Markdown() []byte {
	var b bytes.Buffer
	p := rep.Preset
	title := "OKTO studies"
	if rep.Protocol != nil {
		title = "Pre-registered study " + rep.Protocol.Config.Name
	}
	writeHeader(&b, title, rep.Command, rep.Machine, p, rep.Seeds, rep.Splits)
	if rep.Protocol != nil {
		rep.Protocol.markdown(&b)
	}
	fmt.Fprintf(&b, "- SFT: model %s, vocab %d, %d epochs", modelText(p.SFT), p.SFT.VocabSize, p.SFT.Epochs)
	if p.SFT.MaxSteps > 0 {
		fmt.Fprintf(&b, " (at most %d steps)", p.SFT.MaxSteps)
	}
	fmt.Fprintf(&b, ", batch %d, lr %g.\n", p.SFT.BatchSize, p.SFT.LR)
	on := fmt.Sprintf("the %s (SFT share %g)", p.RL.On, p.RL.Fraction)
	if h := HeldOutShare(p.RL); h > 0 {
		on = fmt.Sprintf("%g%% of the holdout (SFT share %g; the other %g%% is the split heldout, evaluated for the models that never saw it: SFT-75 and RL on the holdout)", 100*(1-h), p.RL.Fraction, 100*h)
	}
	fmt.Fprintf(&b, "- RL (the recipe's run; each study changes one setting): %s, online %v, on %s, x%d, reward %s; %d steps of %d prompts x K=%d, temperature %g, %d tokens, beta %g, lr %g.\n",
		p.RL.Algo, p.RL.Online, on, p.RL.Augment, p.RL.Reward.Kind, p.RL.Steps, p.RL.Prompts, p.RL.K, p.RL.Temperature, p.RL.MaxTokens, p.RL.Beta, p.RL.LR)
	fmt.Fprintf(&b, "- Final evaluation: greedy, schema-guided, %s per model and split.\n", questions(p.EvalN))
	fmt.Fprintf(&b, "- Budget: %s.\n\n", p.Budget)
	fmt.Fprintf(&b, "Every cell is EX in points (on the split its table names): mean ± sample std [min-max] over the seeds that finished (n).\n\n")
	for _, st := range rep.Studies {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", st.Name, st.Question)
		for _, t := range st.Tables {
			fmt.Fprintf(&b, "### %s on %s\n\n| arm | simple | moderate | challenging | total |\n|---|---|---|---|---|\n", st.Name, t.Split)
			for _, r := range t.Rows {
				fmt.Fprintf(&b, "| %s |", r.Label)
				for _, l := range Levels {
					fmt.Fprintf(&b, " %s |", cellText(r.Cells[l]))
				}
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "\n![%s on %s](%s)\n\n", st.Name, t.Split, barsName(st.Name, t.Split))
			writeComparisons(&b, comparisonsOf(rep.Comparisons, st.Name, t.Split))
		}
	}
	fmt.Fprintf(&b, "## The recipe's claims\n\nComputed from the tables above (mean over seeds); \"differs\" marks a result that does not reproduce the claim here.\n\n")
	if len(rep.Claims) == 0 {
		b.WriteString("No claim could be checked: the studies that test them were not run or did not finish.\n\n")
	}
	writeClaims(&b, rep.Claims)
	if len(rep.Curves) > 0 {
		b.WriteString("## Training curves\n\n![reward mean](plot-reward.svg)\n\n![dev EX during training](plot-devex.svg)\n\n")
	}
	var total float64
	b.WriteString("## Runs\n\n| run | id | steps | seconds |\n|---|---|---|---|\n")
	for _, r := range rep.Runs {
		if !r.Done {
			fmt.Fprintf(&b, "| %s | %s | - | not finished |\n", r.Name, r.ID)
			continue
		}
		total += r.Seconds
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f |\n", r.Name, r.ID, r.Steps, r.Seconds)
	}
	fmt.Fprintf(&b, "\nSum of run times %.0f s; this invocation's wall time %.0f s (cached runs cost nothing).\n", total, rep.WallSeconds)
	b.WriteString(cpusNote(rep.Runs, rep.Machine))
	return b.Bytes()
}

// cpusNote says which finished runs were trained on another processor
// than the report's machine, or on one not recorded: the header's machine
// line is this invocation's, and a cached run may come from elsewhere.
// It is empty when every run finished on the report's CPU.
func cpusNote(runs []RunRow, m Machine) string {
	elsewhere := map[string][]string{} // run names by the other CPU they finished on
	var unknown []string
	for _, r := range runs {
		switch {
		case !r.Done || r.CPU == m.CPU:
		case r.CPU == "":
			unknown = append(unknown, r.Name)
		default:
			elsewhere[r.CPU] = append(elsewhere[r.CPU], r.Name)
		}
	}
	var b strings.Builder
	for _, cpu := range slices.Sorted(maps.Keys(elsewhere)) {
		fmt.Fprintf(&b, "\nFinished on another CPU (%s), not this invocation's: %s.\n", cpu, strings.Join(elsewhere[cpu], ", "))
	}
	if len(unknown) > 0 && m.CPU != "" {
		fmt.Fprintf(&b, "\nCPU not recorded (runs from before sqlrl recorded it): %s.\n", strings.Join(unknown, ", "))
	}
	kernels := map[string][]string{} // run names by the other kernel they finished with
	for _, r := range runs {
		if r.Done && r.Kernel != "" && r.Kernel != m.Kernel {
			kernels[r.Kernel] = append(kernels[r.Kernel], r.Name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kernels)) {
		fmt.Fprintf(&b, "\nFinished with another gemm kernel (%s), not this invocation's: %s.\n", k, strings.Join(kernels[k], ", "))
	}
	return b.String()
}

func questions(n int) string {
	if n <= 0 {
		return "all questions"
	}
	return fmt.Sprintf("%d questions", n)
}

func joinSeeds(s []uint64) string {
	var parts []string
	for _, x := range s {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ",")
}

func cellText(s Stat) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ± %.1f [%.1f-%.1f] (%d)", s.Mean, s.Std, s.Min, s.Max, s.N)
}

// gainText is a gain's Stat with its signs, which cellText's range would
// run together ("[-2.0--1.0]").
func gainText(s Stat) string {
	if s.N < 2 {
		return fmt.Sprintf("%+.1f", s.Mean)
	}
	return fmt.Sprintf("%+.1f ± %.1f [%+.1f, %+.1f] (%d)", s.Mean, s.Std, s.Min, s.Max, s.N)
}

// row finds an arm's row in a split's tables (any study holding it).
func (rep *Report) row(key, split string) (Row, bool) {
	for _, st := range rep.Studies {
		for _, t := range st.Tables {
			if t.Split != split {
				continue
			}
			if i := slices.IndexFunc(t.Rows, func(r Row) bool { return r.Key == key }); i >= 0 {
				return t.Rows[i], true
			}
		}
	}
	return Row{}, false
}

// writeClaims lists claim checks as Markdown bullets, "differs" in bold
// where a result does not reproduce the claim: the studies' report and the
// flywheel's say it the same way.
func writeClaims(b *bytes.Buffer, claims []Claim) {
	for _, c := range claims {
		verdict := "holds"
		if !c.Holds {
			verdict = "**differs**"
		}
		fmt.Fprintf(b, "- %s (%s): %s. %s\n", c.Claim, c.Split, verdict, c.Finding)
	}
	b.WriteString("\n")
}
