package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/significance"
	"github.com/sqlrl/sqlrl/train"
)

// TestReadsFile, in an experiment directory, records every final
// evaluation report that showed test figures: the durable count the
// reports print ("test read N times for this configuration").
const TestReadsFile = "test-reads.json"

// preregFile is a study's record in the experiment directory: its
// config's hash when its first run began.
func preregFile(name string) string { return "preregistered-" + name + ".json" }

// Preregistration is a study's config as it was when the study first
// started (preregFile).
type Preregistration struct {
	Study        string    `json:"study"`
	Config       string    `json:"config"`
	SHA256       string    `json:"sha256"`
	FirstStarted time.Time `json:"first_started"`
	// Text is the file as it was, so that a change can be shown.
	Text string `json:"text"`
}

// TestRead is one report that showed a configuration's test figures.
type TestRead struct {
	Study   string    `json:"study"`
	SHA256  string    `json:"sha256"`
	Time    time.Time `json:"time"`
	Command string    `json:"command,omitempty"`
}

type testReadsJSON struct {
	Reads []TestRead `json:"reads"`
}

// Protocol is a pre-registered study's part of report.json: the config
// and its history, the test split's reads, the comparisons the config
// names on every split and the decision.
type Protocol struct {
	Config StudyConfig `json:"config"`
	// Path and SHA256 are the config file's now; First is the record of
	// the first start, Changed whether the file differs from it.
	Path    string          `json:"path"`
	SHA256  string          `json:"sha256"`
	First   Preregistration `json:"first"`
	Changed bool            `json:"changed"`
	// Commit is the last commit of the config file where it is committed
	// as it is; CommitNote says why not otherwise.
	Commit     string `json:"commit,omitempty"`
	CommitNote string `json:"commit_note,omitempty"`
	// FinalTest says whether this report evaluated the sealed test split;
	// TestReads counts the reports that showed this configuration's test
	// figures (this one included), TestReadsAll those of every
	// configuration in the directory.
	FinalTest    bool `json:"final_test"`
	TestReads    int  `json:"test_reads"`
	TestReadsAll int  `json:"test_reads_all"`
	// Kernels, CPUs and Commits are those the compared arms' runs (and
	// the runs they start from) finished with; Unrecorded counts the
	// runs that recorded no kernel.
	Kernels    []string `json:"kernels"`
	CPUs       []string `json:"cpus"`
	Commits    []string `json:"commits"`
	Unrecorded int      `json:"kernel_unrecorded,omitempty"`
	// Roundings counts the kernels that round differently (their
	// nn.Kernel rounding hashes): what the rule's min_kernels counts, since
	// two kernel names may share their code.
	Roundings int `json:"roundings"`
	// Comparisons are the config's, on every split evaluated, Holm-
	// corrected across them split by split.
	Comparisons []ComparisonRow `json:"comparisons"`
	Decision    Verdict         `json:"decision"`
}

// Verdict is the decision rule applied to the primary comparison.
type Verdict struct {
	Holds   bool   `json:"holds"`
	Finding string `json:"finding"`
	// Unmet lists each condition of the rule that is not met.
	Unmet []string `json:"unmet,omitempty"`
}

// StudyOptions are `experiment study`'s own: the config file and whether
// this invocation runs the final evaluation on the sealed test split.
type StudyOptions struct {
	Config    string
	FinalTest bool
}

// ExecuteStudy runs a pre-registered study: it records the config's hash
// at the first start (or reads that record), plans the config's studies,
// arms and seeds through the same cached, resumable runner as Execute,
// with -final-test evaluates the compared arms on the sealed test split
// and counts the read, then writes report.md and report.json with the
// protocol's part (Report.Protocol).
func ExecuteStudy(ctx context.Context, o Options, so StudyOptions) (*Done, error) {
	c, raw, err := ReadStudyConfig(so.Config)
	if err != nil {
		return nil, err
	}
	if o.Preset, err = c.preset(); err != nil {
		return nil, err
	}
	o.Seeds, o.Studies = c.Seeds, c.Studies
	// one bootstrap for the decision and the recipe's claims, so that a
	// pair never shows two intervals
	so2 := significance.Options{Resamples: c.Decision.Resamples, Seed: c.Decision.BootstrapSeed}
	o.bootstrap = &so2
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("study %s: %w", c.Name, err)
	}
	sum := sha256.Sum256(raw)
	prot := &Protocol{Config: *c, Path: so.Config, SHA256: hex.EncodeToString(sum[:]), FinalTest: so.FinalTest}
	prot.Commit, prot.CommitNote = gitCommitted(ctx, so.Config)
	var testFP string
	if so.FinalTest {
		if testFP, err = TestFingerprint(o.Bench); err != nil {
			return nil, err
		}
		if testFP == "" {
			return nil, fmt.Errorf("%s has no sealed test split (test.json): generate the benchmark again with `sqlrl bench generate` (train and dev stay byte for byte the same)", o.Bench)
		}
	}
	extend := func(pl *Plan, fp string) error {
		arms := planArms(pl)
		for _, a := range c.Arms {
			if _, ok := arms[a]; !ok {
				return fmt.Errorf("study config %s: arm %q is not in studies %s (they have: %s)", so.Config, a, strings.Join(c.Studies, ", "), strings.Join(armKeys(pl), ", "))
			}
		}
		pl.keepArms(c.Arms)
		arms = planArms(pl)
		if c.Split != dataset.SplitTest && !slices.Contains(pl.Splits, c.Split) {
			return fmt.Errorf("study config %s: split %q is not one of the benchmark's evaluation splits (%s) nor test", so.Config, c.Split, strings.Join(pl.Splits, ", "))
		}
		if so.FinalTest {
			finalTestEvals(pl, arms, c.Arms, fp, testFP)
		}
		// The config is checked and its runs planned: the first run
		// begins now, and with it the record of the config.
		prot.First, err = register(o.Out, c.Name, so.Config, prot.SHA256, raw, o.Now())
		prot.Changed = prot.First.SHA256 != prot.SHA256
		return err
	}
	done, rep, results, err := execute(ctx, o, nil, extend)
	if err != nil {
		return done, err
	}
	runsDir := filepath.Join(o.Out, "runs")
	arms := planArms(done.Plan)
	pairs := make([]armPair, len(c.Comparisons))
	for i, p := range c.Comparisons {
		pairs[i] = armPair{p.Treatment, p.Control}
	}
	labels := make([][2]string, len(pairs))
	for i, p := range pairs {
		labels[i][0], labels[i][1] = pairLabels(done.Plan, p)
	}
	for _, split := range done.Plan.Splits {
		rows := compareArms(c.Name, split, arms, pairs, runsDir, so2)
		for i := range rows {
			rows[i].TreatmentLabel, rows[i].ControlLabel = labels[i][0], labels[i][1]
		}
		prot.Comparisons = append(prot.Comparisons, rows...)
	}
	prot.machines(done.Plan, arms, results)
	testShown := false
	for _, a := range c.Arms {
		for _, m := range arms[a].Models {
			if ev := m.Evals[dataset.SplitTest]; ev != nil && results[ev.ID] != nil {
				testShown = true
			}
		}
	}
	read := TestRead{Study: c.Name, SHA256: prot.SHA256, Time: o.Now(), Command: o.Command}
	if prot.TestReads, prot.TestReadsAll, err = testReads(o.Out, read, testShown); err != nil {
		return done, err
	}
	prot.Decision = prot.decide()
	rep.Comparisons, rep.Protocol = nil, prot
	if err := rep.Write(o.Out); err != nil {
		return done, err
	}
	done.Report = rep
	return done, nil
}

// register returns the study's record of its first start, writing it now
// if there is none: the hash of the config as it is when its first run
// begins.
func register(out, name, path, sum string, raw []byte, now time.Time) (Preregistration, error) {
	file := filepath.Join(out, preregFile(name))
	var p Preregistration
	b, err := os.ReadFile(file)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &p); err != nil || p.SHA256 == "" {
			return p, fmt.Errorf("read %s: the record of study %s's first start is damaged (%v); it cannot be rebuilt, and removing it would erase the study's history", file, name, err)
		}
		return p, nil
	case !errors.Is(err, os.ErrNotExist):
		return p, fmt.Errorf("read %s: %w", file, err)
	}
	p = Preregistration{Study: name, Config: path, SHA256: sum, FirstStarted: now.UTC(), Text: string(raw)}
	return p, writeJSON(file, p)
}

// RecordTestRead appends read to out's TestReadsFile, as a study's final
// evaluation does, and returns the reads of the same SHA256 and all reads
// recorded there: for other commands that read a test set (sqlrl
// specialise's human test), counted as the protocol counts them.
func RecordTestRead(out string, read TestRead) (forSum, all int, err error) {
	return testReads(out, read, true)
}

// testReads counts the reports that showed test figures, for the
// configuration sum and in all, after recording read when shown.
func testReads(out string, read TestRead, shown bool) (forConfig, all int, err error) {
	file := filepath.Join(out, TestReadsFile)
	var rs testReadsJSON
	if b, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(b, &rs); err != nil {
			return 0, 0, fmt.Errorf("read %s: %w (the count of test reads is damaged; repair it by hand rather than delete it)", file, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, 0, fmt.Errorf("read %s: %w", file, err)
	}
	if shown {
		rs.Reads = append(rs.Reads, read)
		if err := writeJSON(file, rs); err != nil {
			return 0, 0, err
		}
	}
	for _, r := range rs.Reads {
		if r.SHA256 == read.SHA256 {
			forConfig++
		}
	}
	return forConfig, len(rs.Reads), nil
}

// gitCommitted is the commit of the last change to the file at path when
// git holds it unmodified, else "" and why; a variable so that tests need
// no git.
var gitCommitted = func(ctx context.Context, path string) (commit, note string) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	st, err := git("status", "--porcelain", "--", base)
	if err != nil {
		return "", "not known to be committed: git status failed (" + err.Error() + ")"
	}
	if st != "" {
		return "", "not committed: git status says " + strings.Fields(st)[0]
	}
	h, err := git("log", "-1", "--format=%H", "--", base)
	if err != nil || h == "" {
		return "", "not committed: no commit holds it"
	}
	return h[:min(12, len(h))], ""
}

// planArms is every arm of pl's studies by key.
func planArms(pl *Plan) map[string]Arm {
	arms := map[string]Arm{}
	for _, st := range pl.Studies {
		for _, a := range st.Arms {
			arms[a.Key] = a
		}
	}
	return arms
}

// pairLabels names a comparison's two arms as the first of pl's studies
// that holds both names them, so that an arm shared by several studies is
// named for what this comparison varies: the recipe's run is "holdout x4"
// beside x1, "hybrid (gate)" beside the other rewards, and the SFT-75 +
// KTO of the holdout study beside SFT-100 + KTO. Without such a study, each
// arm keeps the label planArms gives it.
func pairLabels(pl *Plan, p armPair) (treatment, control string) {
	for _, st := range pl.Studies {
		t := slices.IndexFunc(st.Arms, func(a Arm) bool { return a.Key == p.treatment })
		c := slices.IndexFunc(st.Arms, func(a Arm) bool { return a.Key == p.control })
		if t >= 0 && c >= 0 {
			return st.Arms[t].Label, st.Arms[c].Label
		}
	}
	arms := planArms(pl)
	return arms[p.treatment].Label, arms[p.control].Label
}

func armKeys(pl *Plan) []string {
	var out []string
	for k := range planArms(pl) {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// finalTestEvals plans the final evaluation of every model of the arms
// keys on the whole sealed test split, its fingerprint in the config.
func finalTestEvals(pl *Plan, arms map[string]Arm, keys []string, bench, testFP string) {
	for _, k := range keys {
		for _, m := range arms[k].Models {
			ev := &EvalConfig{EvalConfig: train.EvalConfig{Split: dataset.SplitTest, Guide: true}, Decoder: decoderKey(), Test: testFP}
			c := RunConfig{Kind: KindEval, Bench: bench, Seed: m.Config.Seed, SplitSeed: m.Config.SplitSeed, Parent: m.ID, Eval: ev}
			m.Evals[dataset.SplitTest] = pl.add(&Run{Name: fmt.Sprintf("eval/%s/%s", m.Name, dataset.SplitTest), Config: c, Parent: m})
		}
	}
	if !slices.Contains(pl.Splits, dataset.SplitTest) {
		pl.Splits = append(pl.Splits, dataset.SplitTest)
	}
}

// machines fills in the kernels, CPUs and commits of the primary
// comparison's runs: its arms' models and the runs they start from.
func (p *Protocol) machines(pl *Plan, arms map[string]Arm, results map[string]*Result) {
	kernels, cpus, commits := map[string]bool{}, map[string]bool{}, map[string]bool{}
	seen := map[string]bool{}
	for _, key := range []string{p.Config.Primary.Treatment, p.Config.Primary.Control} {
		for _, m := range arms[key].Models {
			for r := m; r != nil; r = r.Parent {
				res := results[r.ID]
				if res == nil || seen[r.ID] {
					continue
				}
				seen[r.ID] = true
				if res.Kernel == "" {
					p.Unrecorded++
				} else {
					kernels[res.Kernel] = true
				}
				if res.CPU != "" {
					cpus[res.CPU] = true
				}
				if res.Commit != "" {
					commits[res.Commit] = true
				}
			}
		}
	}
	sorted := func(m map[string]bool) []string {
		out := []string{}
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	p.Kernels, p.CPUs, p.Commits = sorted(kernels), sorted(cpus), sorted(commits)
	roundings := map[string]bool{}
	for k := range kernels {
		roundings[kernelRounding(k)] = true
	}
	p.Roundings = len(roundings)
}

// kernelRounding is the rounding hash of a recorded kernel (nn.Kernel's
// " r<hash>"), or the whole name where it has none.
func kernelRounding(k string) string {
	if i := strings.LastIndex(k, " r"); i >= 0 {
		return k[i+2:]
	}
	return k
}

// decide applies the decision rule to the primary comparison on the
// decision split.
func (p *Protocol) decide() Verdict {
	c := p.Config
	var v Verdict
	var row *ComparisonRow
	for i, r := range p.Comparisons {
		if r.Split == c.Split && r.Treatment == c.Primary.Treatment && r.Control == c.Primary.Control {
			row = &p.Comparisons[i]
		}
	}
	switch {
	case c.Split == dataset.SplitTest && !p.FinalTest && p.TestReads > 0:
		// the decision is the -final-test report's; this one does not read test again
		v.Unmet = append(v.Unmet, fmt.Sprintf("this report does not show the sealed test split, which -final-test has read %d time(s) for this configuration: its report holds the decision", p.TestReads))
	case c.Split == dataset.SplitTest && !p.FinalTest:
		v.Unmet = append(v.Unmet, "the final evaluation on the sealed test split has not run (-final-test, once the config is final and committed)")
	case row == nil || row.Stats == nil:
		note := "not evaluated"
		if row != nil {
			note = row.Note
		}
		v.Unmet = append(v.Unmet, fmt.Sprintf("no paired comparison of %s and %s on %s: %s", c.Primary.Treatment, c.Primary.Control, c.Split, note))
	default:
		s := row.Stats
		v.Finding = fmt.Sprintf("%s minus %s on %s: %+.1f EX points, 95%% interval [%+.1f, %+.1f], p %.2g (Holm over %d comparisons %.2g), %d seed(s) x %d questions, kernel(s) %s",
			row.TreatmentLabel, row.ControlLabel, c.Split, s.Diff, s.Low, s.High, s.P, len(c.Comparisons), s.PHolm, s.Seeds, s.Questions, strings.Join(p.Kernels, ", "))
		if s.Seeds < c.Decision.MinSeeds {
			v.Unmet = append(v.Unmet, fmt.Sprintf("%d seed(s) compared, the rule wants %d", s.Seeds, c.Decision.MinSeeds))
		}
		if p.Roundings < c.Decision.MinKernels {
			v.Unmet = append(v.Unmet, fmt.Sprintf("%d gemm kernel(s) of their own rounding among the runs (%d run(s) recorded none), the rule wants %d", p.Roundings, p.Unrecorded, c.Decision.MinKernels))
		}
		if !(s.PHolm < c.Decision.Alpha) {
			v.Unmet = append(v.Unmet, fmt.Sprintf("Holm-corrected p %.2g is not below %g", s.PHolm, c.Decision.Alpha))
		}
		if !(s.Low > 0) {
			v.Unmet = append(v.Unmet, fmt.Sprintf("the interval's lower bound %+.1f is not above 0", s.Low))
		}
	}
	if p.Changed {
		v.Unmet = append(v.Unmet, "the config changed after the first run began: it is not the pre-registered one")
	}
	if p.Commit == "" {
		v.Unmet = append(v.Unmet, "the config is "+p.CommitNote)
	}
	v.Holds = len(v.Unmet) == 0
	return v
}

// markdown is the protocol's section of report.md.
func (p *Protocol) markdown(b *bytes.Buffer) {
	c := p.Config
	fmt.Fprintf(b, "## Protocol\n\n%s\n\n", c.Question)
	fmt.Fprintf(b, "- Config: `%s`, sha256 `%s`. ", p.Path, p.SHA256)
	if p.Changed {
		fmt.Fprintf(b, "**Changed after the first run began** (%s, sha256 `%s`): this is not the pre-registered config.\n", p.First.FirstStarted.Format(time.RFC3339), p.First.SHA256)
	} else {
		fmt.Fprintf(b, "Unchanged since the first run began (%s).\n", p.First.FirstStarted.Format(time.RFC3339))
	}
	if p.Commit != "" {
		fmt.Fprintf(b, "- Committed: in %s.\n", p.Commit)
	} else {
		fmt.Fprintf(b, "- **%s**.\n", upperFirst(p.CommitNote))
	}
	var cmp []string
	for _, x := range c.Comparisons {
		cmp = append(cmp, x.Treatment+" - "+x.Control)
	}
	fmt.Fprintf(b, "- Arms %s; seeds %s; metric EX; decided on %s. Primary comparison %s - %s; all comparisons: %s.\n",
		strings.Join(c.Arms, ", "), joinSeeds(c.Seeds), c.Split, c.Primary.Treatment, c.Primary.Control, strings.Join(cmp, ", "))
	fmt.Fprintf(b, "- Decision rule: Holm-corrected p below %g and the 95%% interval above 0, over at least %d seeds whose runs used at least %d gemm kernels, the config committed and unchanged.\n",
		c.Decision.Alpha, c.Decision.MinSeeds, c.Decision.MinKernels)
	if p.FinalTest {
		fmt.Fprintf(b, "- Test split: test read %d times for this configuration, this report included (%d times in this directory, over every configuration).\n", p.TestReads, p.TestReadsAll)
	} else {
		fmt.Fprintf(b, "- Test split: not read by this report; test read %d times for this configuration before (%d times in this directory).\n", p.TestReads, p.TestReadsAll)
	}
	unrec := ""
	if p.Unrecorded > 0 {
		unrec = fmt.Sprintf(" (%d run(s) recorded none)", p.Unrecorded)
	}
	fmt.Fprintf(b, "- The primary comparison's runs: gemm kernel(s) %s%s, %d rounding(s); CPU(s) %s; sqlrl commit(s) %s.\n\n",
		orNone(p.Kernels), unrec, p.Roundings, orNone(p.CPUs), orNone(p.Commits))
	verdict := "does not hold"
	if p.Decision.Holds {
		verdict = "holds"
	}
	fmt.Fprintf(b, "### Decision: %s\n\n", verdict)
	if p.Decision.Finding != "" {
		fmt.Fprintf(b, "%s.\n\n", p.Decision.Finding)
	}
	for _, u := range p.Decision.Unmet {
		fmt.Fprintf(b, "- %s\n", u)
	}
	if len(p.Decision.Unmet) > 0 {
		b.WriteString("\n")
	}
	var splits []string
	for _, r := range p.Comparisons {
		if !slices.Contains(splits, r.Split) {
			splits = append(splits, r.Split)
		}
	}
	for _, s := range splits {
		fmt.Fprintf(b, "### Comparisons on %s\n\n", s)
		writeComparisons(b, comparisonsOf(p.Comparisons, c.Name, s))
	}
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none recorded"
	}
	return strings.Join(xs, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
