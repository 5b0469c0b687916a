package experiment

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const studyJSON = `{
  "name": "pilot",
  "question": "Does online KTO beat SFT-100?",
  "preset": "flywheel-quick",
  "settings": {"sft100": true, "kto-steps": 3},
  "studies": ["flywheel"],
  "arms": ["sft75", "okto", "sft100"],
  "seeds": [1, 2],
  "metric": "ex",
  "split": "test",
  "comparisons": [{"treatment": "okto", "control": "sft75"}, {"treatment": "okto", "control": "sft100"}],
  "primary": {"treatment": "okto", "control": "sft100"},
  "decision": {"alpha": 0.05, "min_seeds": 2, "min_kernels": 1, "resamples": 500}
}
`

// studyOptions is a study's Options on a fake trainer and a fixed machine.
func studyOptions(bench, out string, tr Trainer) Options {
	return Options{Out: out, Bench: bench, Trainer: tr, Command: "sqlrl experiment study -config c.json BENCH",
		Machine: &Machine{CPUs: 2, CPU: "CPU A", GOARCH: "amd64", GOOS: "linux", Kernel: "openblas/Haswell re8d14beb", Commit: "0123456789ab"},
		Now:     func() time.Time { return time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC) }}
}

func readProtocol(t *testing.T, out string) *Protocol {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Protocol *Protocol `json:"protocol"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Protocol == nil {
		t.Fatal("report.json has no protocol")
	}
	return rep.Protocol
}

// TestStudyProtocol runs a pre-registered study through its life: a
// first invocation on dev only, two final evaluations on the sealed test
// split (each counted), then an edit of the config, which the report
// names.
func TestStudyProtocol(t *testing.T) {
	committed := "c0ffee123456"
	old := gitCommitted
	gitCommitted = func(context.Context, string) (string, string) {
		if committed == "" {
			return "", "not committed: git status says M"
		}
		return committed, ""
	}
	defer func() { gitCommitted = old }()
	bench := fakeBench(t, "dev", "test")
	out := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "pilot.json")
	if err := os.WriteFile(cfg, []byte(studyJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &fake{}
	o := studyOptions(bench, out, tr)

	// 1. Dev only: no test evaluation, no read, the decision pending.
	d, err := ExecuteStudy(context.Background(), o, StudyOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Plan.Runs {
		if r.Config.Eval != nil && r.Config.Eval.Split == "test" {
			t.Fatalf("%s: evaluated on test without -final-test", r.Name)
		}
	}
	p := readProtocol(t, out)
	if p.TestReads != 0 || p.Changed || p.Decision.Holds || !strings.Contains(strings.Join(p.Decision.Unmet, ";"), "final evaluation") {
		t.Errorf("dev only: reads %d changed %v decision %+v", p.TestReads, p.Changed, p.Decision)
	}
	if len(p.SHA256) != 64 || p.First.SHA256 != p.SHA256 || p.Commit != committed {
		t.Errorf("sha %q first %q commit %q", p.SHA256, p.First.SHA256, p.Commit)
	}
	devRuns := len(d.Plan.Runs)

	// 2. The final evaluation: the compared arms' models on test, once
	// each, and one read recorded; again: cached, and a second read.
	for i, want := range []int{1, 2} {
		d, err = ExecuteStudy(context.Background(), o, StudyOptions{Config: cfg, FinalTest: true})
		if err != nil {
			t.Fatal(err)
		}
		var tests int
		for _, r := range d.Plan.Runs {
			if r.Config.Eval != nil && r.Config.Eval.Split == "test" {
				tests++
				if r.Config.Eval.Test == "" {
					t.Errorf("%s: no test fingerprint in its config", r.Name)
				}
			}
		}
		if tests != 3*2 || len(d.Plan.Runs) != devRuns+tests {
			t.Errorf("final %d: %d test evaluations of %d runs, want 6 more than %d", i, tests, len(d.Plan.Runs), devRuns)
		}
		p = readProtocol(t, out)
		if p.TestReads != want || p.TestReadsAll != want || !p.FinalTest {
			t.Errorf("final %d: test read %d (%d in all), want %d", i, p.TestReads, p.TestReadsAll, want)
		}
	}
	if tr.calls[KindEval] == 0 {
		t.Fatal("no evaluation ran")
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"# Pre-registered study pilot", "dev splits dev, heldout; final evaluation on the sealed test split.", "sha256 `" + p.SHA256 + "`", "Unchanged since the first run began",
		"test read 2 times for this configuration", "### Comparisons on test", "gemm kernel(s) openblas/Haswell re8d14beb, 1 rounding(s)", "p (Holm)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// The recipe's claims quote the interval of okto against its start
	// from the decision's bootstrap: one pair, one interval.
	var rep struct {
		Claims []Claim `json:"claims"`
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report.json: %v", err)
	}
	for _, r := range p.Comparisons {
		if r.Treatment != "okto" || r.Control != "sft75" || r.Stats == nil {
			continue
		}
		interval := fmt.Sprintf("95%% interval [%+.1f, %+.1f]", r.Stats.Low, r.Stats.High)
		found := false
		for _, c := range rep.Claims {
			if c.Split == r.Split && strings.Contains(c.Finding, "95% interval") {
				found = true
				if !strings.Contains(c.Finding, interval) {
					t.Errorf("claim on %s: %q; the protocol's interval is %s", r.Split, c.Finding, interval)
				}
			}
		}
		if !found {
			t.Errorf("no claim on %s quotes an interval", r.Split)
		}
	}
	var primary *ComparisonRow
	for i, r := range p.Comparisons {
		if r.Split == "test" && r.Treatment == "okto" && r.Control == "sft100" {
			primary = &p.Comparisons[i]
		}
	}
	if primary == nil || primary.Stats == nil || primary.Stats.Seeds != 2 || primary.Stats.Questions != 10 || primary.Stats.PHolm < primary.Stats.P {
		t.Fatalf("primary comparison on test: %+v", primary)
	}
	if p.Decision.Finding == "" {
		t.Errorf("no finding: %+v", p.Decision)
	}

	// A plain invocation after the final test: test neither read nor
	// shown again, and the decision pointed to the -final-test report
	// rather than said not to have run.
	if _, err := ExecuteStudy(context.Background(), o, StudyOptions{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	after := readProtocol(t, out)
	if unmet := strings.Join(after.Decision.Unmet, ";"); after.TestReads != 2 || after.FinalTest || !strings.Contains(unmet, "-final-test has read 2 time(s)") || strings.Contains(unmet, "has not run") {
		t.Errorf("plain run after the final test: reads %d, final %v, unmet %q", after.TestReads, after.FinalTest, unmet)
	}

	// 3. An edit after the first run: a new hash, the first one kept,
	// the report saying so, and the reads of the new config counted apart.
	edited := strings.Replace(studyJSON, `"alpha": 0.05`, `"alpha": 0.1`, 1)
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	committed = ""
	if _, err := ExecuteStudy(context.Background(), o, StudyOptions{Config: cfg, FinalTest: true}); err != nil {
		t.Fatal(err)
	}
	p2 := readProtocol(t, out)
	if !p2.Changed || p2.First.SHA256 != p.SHA256 || p2.SHA256 == p.SHA256 || p2.First.Text != studyJSON {
		t.Errorf("after the edit: changed %v, first %s (was %s), now %s", p2.Changed, p2.First.SHA256, p.SHA256, p2.SHA256)
	}
	if p2.TestReads != 1 || p2.TestReadsAll != 3 || p2.Decision.Holds {
		t.Errorf("after the edit: reads %d of %d, decision %+v", p2.TestReads, p2.TestReadsAll, p2.Decision)
	}
	unmet := strings.Join(p2.Decision.Unmet, ";")
	if !strings.Contains(unmet, "changed after the first run began") || !strings.Contains(unmet, "not committed") {
		t.Errorf("unmet %q: want the change and the commit named", unmet)
	}
	md, _ = os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "**Changed after the first run began**") {
		t.Errorf("report.md does not say the config changed:\n%s", md)
	}
}

// TestStudyRunSeeds: an invocation limited to some seeds runs only theirs
// and reports the others' finished runs as they are.
func TestStudyRunSeeds(t *testing.T) {
	defer func(old func(context.Context, string) (string, string)) { gitCommitted = old }(gitCommitted)
	gitCommitted = func(context.Context, string) (string, string) { return "c0ffee", "" }
	bench := fakeBench(t, "dev", "test")
	out := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "pilot.json")
	if err := os.WriteFile(cfg, []byte(studyJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	o := studyOptions(bench, out, &fake{})
	o.RunSeeds = []uint64{2}
	d, err := ExecuteStudy(context.Background(), o, StudyOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Report.Runs {
		seed1 := strings.Contains(r.Name, "seed1")
		if seed1 == r.Done {
			t.Errorf("%s: done %v with -run-seeds 2", r.Name, r.Done)
		}
	}
}

func TestStudyConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"unknown field", `"metric": "ex"`, `"metric": "ex", "metrc": 1`, "unknown field"},
		{"metric", `"metric": "ex"`, `"metric": "f1"`, "metric"},
		{"arm not listed", `{"treatment": "okto", "control": "sft75"}`, `{"treatment": "okto", "control": "dpo"}`, "comparisons[0]"},
		{"primary", `"primary": {"treatment": "okto", "control": "sft100"}`, `"primary": {"treatment": "sft100", "control": "okto"}`, "primary"},
		{"setting", `"kto-steps": 3`, `"kto-stepz": 3`, "settings.kto-stepz"},
		{"setting value", `"kto-steps": 3`, `"kto-steps": "three"`, "settings.kto-steps"},
		{"preset", `"flywheel-quick"`, `"huge"`, "preset"},
		{"seeds", `"seeds": [1, 2]`, `"seeds": [1, 1]`, "seeds"},
		{"rule", `"min_kernels": 1`, `"min_kernels": 0`, "min_kernels"},
		{"split", `"split": "test"`, `"split": "holdout"`, "split"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(studyJSON, c.from) {
				t.Fatalf("%q not in the config", c.from)
			}
			path := filepath.Join(t.TempDir(), "c.json")
			if err := os.WriteFile(path, []byte(strings.Replace(studyJSON, c.from, c.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := ReadStudyConfig(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v: want one naming %s and %q", err, path, c.want)
			}
		})
	}
	// An arm the studies do not have is refused before any run.
	path := filepath.Join(t.TempDir(), "c.json")
	bad := strings.NewReplacer(`"arms": ["sft75", "okto", "sft100"]`, `"arms": ["sft75", "okto", "dpo"]`,
		`"control": "sft100"}`, `"control": "dpo"}`).Replace(studyJSON)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &fake{}
	refusedOut := t.TempDir()
	_, err := ExecuteStudy(context.Background(), studyOptions(fakeBench(t, "dev"), refusedOut, tr), StudyOptions{Config: path})
	if err == nil || !strings.Contains(err.Error(), `arm "dpo"`) || tr.n != 0 {
		t.Errorf("error %v after %d runs: want arm \"dpo\" refused before any", err, tr.n)
	}
	if m, _ := filepath.Glob(filepath.Join(refusedOut, "preregistered-*")); len(m) != 0 {
		t.Errorf("a refused config was recorded as pre-registered: %v", m)
	}
	// -final-test on a benchmark without a test split says how to get one.
	if err := os.WriteFile(path, []byte(studyJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ExecuteStudy(context.Background(), studyOptions(fakeBench(t, "dev"), t.TempDir(), tr), StudyOptions{Config: path, FinalTest: true})
	if err == nil || !strings.Contains(err.Error(), "bench generate") {
		t.Errorf("error %v: want the way to a test split", err)
	}
}

// TestSealedSplitOutOfOrdinaryRuns: the test split is no evaluation split
// and not in the fingerprint, so adding one changes no run ID.
func TestSealedSplitOutOfOrdinaryRuns(t *testing.T) {
	without, with := fakeBench(t, "dev"), fakeBench(t, "dev", "test")
	a, err := Fingerprint(without)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fingerprint(with)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("fingerprint %s with a test split, %s without", b, a)
	}
	splits, err := DevSplits(with)
	if err != nil || slices.Contains(splits, "test") {
		t.Errorf("dev splits %v (%v): the sealed split is not one", splits, err)
	}
	if fp, err := TestFingerprint(with); err != nil || fp == "" {
		t.Errorf("test fingerprint %q, %v", fp, err)
	}
	if fp, err := TestFingerprint(without); err != nil || fp != "" {
		t.Errorf("test fingerprint without a test split: %q, %v", fp, err)
	}
}

// TestStudyConfigsInDocs: the committed study configs read and check, and
// v1-okto plans exactly the runs of the command line it pre-registers
// (results.md row 1), so that runs made by that command are reused.
func TestStudyConfigsInDocs(t *testing.T) {
	paths, err := filepath.Glob("../docs/studies/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no study configs in docs/studies: %v", err)
	}
	for _, p := range paths {
		if _, _, err := ReadStudyConfig(p); err != nil {
			t.Error(err)
		}
	}
	// The report's budget line is the settings', not the preset's.
	for path, want := range map[string]string{"../docs/studies/v1-algorithms-session.json": "each RL arm 100 steps", "../docs/studies/v1-okto-session.json": "KTO 100 steps"} {
		c, _, err := ReadStudyConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := c.preset(); err != nil || !strings.Contains(p.Budget, want) {
			t.Errorf("%s: budget %q (%v), want it to say %q", path, p.Budget, err, want)
		}
	}
	// v2-recipe-session trains v2's recipe: words renamed at 0.5 in SFT
	// and in KTO's prompts, the description phrase.
	v2, _, err := ReadStudyConfig("../docs/studies/v2-recipe-session.json")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := v2.preset(); err != nil || !p.SFT.RenameText || p.SFT.RenameEach != 0.5 || !p.SFT.DescPhrase ||
		!p.RL.RenameText || p.RL.Rename != 0.5 || p.SFT.Epochs != 12 {
		t.Errorf("v2-recipe-session: SFT %+v, RL renaming %+v (%v): want v2's recipe", p.SFT, p.RL.Renaming, err)
	}
	c, _, err := ReadStudyConfig("../docs/studies/v1-okto.json")
	if err != nil {
		t.Fatal(err)
	}
	fromConfig, err := c.preset()
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("flywheel", flag.ContinueOnError)
	f := Flywheel()
	f.FlywheelFlags(fs)
	if err := fs.Parse(strings.Fields("-sft-epochs 24 -heldout 0 -kto-steps 400 -kto-temperature 0.7 -sft100 -kto-rounds 2")); err != nil {
		t.Fatal(err)
	}
	fromFlags, err := FlywheelPreset(f, false, fs)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(p Preset) []string {
		pl, err := NewPlan(p, "fp", c.Seeds, []string{"dev"}, c.Studies)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range pl.Runs {
			out = append(out, r.ID)
		}
		return out
	}
	if a, b := ids(fromConfig), ids(fromFlags); !slices.Equal(a, b) {
		t.Errorf("the config plans %v, the command line %v", a, b)
	}
}

// TestKernelRule: min_kernels counts roundings, not names (OpenBLAS's Zen
// runs Haswell's sgemm and rounds alike).
func TestKernelRule(t *testing.T) {
	for _, c := range []struct {
		kernels []string
		want    int
	}{
		{[]string{"openblas/Haswell re8d14beb", "openblas/Zen re8d14beb"}, 1},
		{[]string{"openblas/Haswell re8d14beb", "openblas/SkylakeX r849d6423"}, 2},
		{[]string{"openblas/Haswell"}, 1}, // recorded before the rounding was
	} {
		arm := Arm{Key: "a"}
		results := map[string]*Result{}
		for i, k := range c.kernels {
			r := &Run{ID: fmt.Sprint("run", i), Config: RunConfig{Seed: uint64(i + 1)}}
			arm.Models = append(arm.Models, r)
			results[r.ID] = &Result{Kernel: k}
		}
		p := &Protocol{Config: StudyConfig{Primary: ArmPair{"a", "b"}}}
		p.machines(nil, map[string]Arm{"a": arm}, results)
		if p.Roundings != c.want {
			t.Errorf("%v: %d roundings, want %d", c.kernels, p.Roundings, c.want)
		}
	}
}

// TestStudyTrainsOnlyItsArms: a study naming some arms of a study trains
// those, the runs they start from and their evaluations, nothing else.
func TestStudyTrainsOnlyItsArms(t *testing.T) {
	defer func(old func(context.Context, string) (string, string)) { gitCommitted = old }(gitCommitted)
	gitCommitted = func(context.Context, string) (string, string) { return "c0ffee", "" }
	bench := fakeBench(t, "dev", "test")
	cfg := filepath.Join(t.TempDir(), "algos.json")
	js := strings.NewReplacer(`"flywheel-quick"`, `"quick"`, `"settings": {"sft100": true, "kto-steps": 3},`, ``,
		`["flywheel"]`, `["algorithms"]`, `["sft75", "okto", "sft100"]`, `["sft75", "okto", "grpo"]`,
		`"control": "sft100"`, `"control": "grpo"`).Replace(studyJSON)
	if err := os.WriteFile(cfg, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &fake{}
	d, err := ExecuteStudy(context.Background(), studyOptions(bench, t.TempDir(), tr), StudyOptions{Config: cfg, FinalTest: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range d.Plan.Runs {
		names = append(names, r.Name)
	}
	// 3 arms x 2 seeds, each evaluated on dev and test (the quick preset
	// keeps no heldout split)
	if tr.calls[KindSFT] != 2 || tr.calls[KindRL] != 4 || len(d.Plan.Runs) != 6+6*2 {
		t.Errorf("%d SFT and %d RL runs trained, planned %v; want SFT-75, online KTO and GRPO, 2 seeds, and their evaluations", tr.calls[KindSFT], tr.calls[KindRL], names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "sft75/") && !strings.HasPrefix(n, "okto/") && !strings.HasPrefix(n, "grpo/") && !strings.HasPrefix(n, "eval/") {
			t.Errorf("planned %s, an arm the study does not compare", n)
		}
	}
	if len(d.Report.Studies) != 1 || len(d.Report.Studies[0].Tables) == 0 || len(d.Report.Studies[0].Tables[0].Rows) != 3 {
		t.Errorf("report studies %+v: want algorithms with a row for each of its 3 compared arms", d.Report.Studies)
	}
}

// TestOfflineArmRunsUnderFlywheel: the flywheel preset renames KTO's
// prompts, which an offline file cannot (train refuses it): its offline
// arm keeps the preset's other settings and drops the renaming.
func TestOfflineArmRunsUnderFlywheel(t *testing.T) {
	pl, err := NewPlan(Flywheel(), "fp", []uint64{1}, []string{"dev"}, []string{"algorithms"})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, r := range pl.Runs {
		if c := r.Config.RL; c != nil && !c.Online {
			seen = true
			if c.Rename != 0 || c.RenameText || c.RenameFamilies || c.Replay != Flywheel().RL.Replay {
				t.Errorf("%s: rename %v (text %v, families %v), replay %d; want no renaming and the preset's replay", r.Name, c.Rename, c.RenameText, c.RenameFamilies, c.Replay)
			}
		}
	}
	if !seen {
		t.Fatal("no offline arm in the algorithms study")
	}
}

// TestRenameTextReachesRuns: rename-text renames words in SFT and in the
// RL arms that rename their prompts (the flywheel's additions), and in
// no RL run that does not rename (the recipe's plain RL, offline arms),
// which train would refuse.
func TestRenameTextReachesRuns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		preset func() Preset
		wantRL bool
	}{{"flywheel", Flywheel, true}, {"flywheel-studies", FlywheelStudies, false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.preset()
			if err := (renameTextValue{&p}).Set("true"); err != nil {
				t.Fatal(err)
			}
			pl, err := NewPlan(p, "fp", []uint64{1}, []string{"dev"}, []string{"algorithms"})
			if err != nil {
				t.Fatal(err)
			}
			var sft, rl int
			for _, r := range pl.Runs {
				switch c := r.Config; {
				case c.SFT != nil:
					sft++
					if !c.SFT.RenameText {
						t.Errorf("%s: SFT renames names, want words", r.Name)
					}
				case c.RL != nil:
					rl++
					if want := tc.wantRL && c.RL.Online; c.RL.RenameText != want || want && c.RL.Rename == 0 {
						t.Errorf("%s: RL renames words %v at %v, want %v", r.Name, c.RL.RenameText, c.RL.Rename, want)
					}
					if c.RL.Replay > 0 && (c.RL.ReplayAs == nil || !c.RL.ReplayAs.RenameText) {
						t.Errorf("%s: replays examples renamed as %+v, want words renamed as SFT renamed them", r.Name, c.RL.ReplayAs)
					}
				}
			}
			if sft == 0 || rl == 0 {
				t.Fatalf("%d SFT and %d RL runs planned", sft, rl)
			}
		})
	}
}

// TestReplayAs: the flywheel's runs replay as the recipe's SFT, with no
// replay_as in their configs, so that they keep their IDs.
func TestReplayAs(t *testing.T) {
	// The flywheel's runs keep their IDs: no replay_as in their configs.
	pl, err := NewPlan(Flywheel(), "fp", []uint64{1}, []string{"dev"}, []string{"flywheel"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pl.Runs {
		if c := r.Config.RL; c != nil && (c.Replay == 0 || c.ReplayAs != nil) {
			t.Errorf("%s: replay %d as %+v, want the preset's replay as the recipe's SFT", r.Name, c.Replay, c.ReplayAs)
		}
	}
}

// TestPairLabels: a comparison names its arms as the study that varies
// what it compares does, not as the last study sharing the recipe's run
// (v1-recipe-choices-session's first report called SFT-75 + KTO on the
// holdout "hybrid (gate)" beside SFT-100 + KTO).
func TestPairLabels(t *testing.T) {
	pl, err := NewPlan(Quick(), "fp", []uint64{1}, []string{"dev"}, []string{"holdout", "augmentation", "reward"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pair           armPair
		treatment, ctl string
	}{
		{armPair{"okto", "rl_seen"}, "SFT-75 + online KTO on the 25% holdout", "SFT-100 + online KTO on the same data"},
		{armPair{"okto", "sft100"}, "SFT-75 + online KTO on the 25% holdout", "SFT-100"},
		{armPair{"sft100", "sft75"}, "SFT-100", "SFT-75"},
		{armPair{"okto", "aug1"}, "holdout x4", "holdout x1"},
		{armPair{"okto", "reward_exec"}, "hybrid (gate)", "execution only"},
		{armPair{"reward_judge", "rl_seen"}, "judge only", "SFT-100 + online KTO on the same data"}, // no study holds both
	} {
		tr, ctl := pairLabels(pl, c.pair)
		if tr != c.treatment || ctl != c.ctl {
			t.Errorf("%s - %s: labelled %q - %q; want %q - %q", c.pair.treatment, c.pair.control, tr, ctl, c.treatment, c.ctl)
		}
	}

	// and a study's report carries those labels, on every split
	defer func(old func(context.Context, string) (string, string)) { gitCommitted = old }(gitCommitted)
	gitCommitted = func(context.Context, string) (string, string) { return "c0ffee", "" }
	bench := fakeBench(t, "dev", "test")
	cfg := filepath.Join(t.TempDir(), "choices.json")
	js := strings.NewReplacer(`"flywheel-quick"`, `"quick"`, `"settings": {"sft100": true, "kto-steps": 3},`, ``,
		`["flywheel"]`, `["holdout", "reward"]`, `["sft75", "okto", "sft100"]`, `["sft75", "okto", "sft100", "rl_seen", "reward_exec"]`,
		`[{"treatment": "okto", "control": "sft75"}, {"treatment": "okto", "control": "sft100"}]`, `[{"treatment": "okto", "control": "rl_seen"}, {"treatment": "okto", "control": "reward_exec"}]`,
		`"primary": {"treatment": "okto", "control": "sft100"}`, `"primary": {"treatment": "okto", "control": "rl_seen"}`).Replace(studyJSON)
	if err := os.WriteFile(cfg, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ExecuteStudy(context.Background(), studyOptions(bench, t.TempDir(), &fake{}), StudyOptions{Config: cfg, FinalTest: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rl_seen": "SFT-75 + online KTO on the 25% holdout", "reward_exec": "hybrid (gate)"}
	rows := d.Report.Protocol.Comparisons
	if len(rows) == 0 {
		t.Fatal("no comparisons in the study's report")
	}
	for _, r := range rows {
		if r.TreatmentLabel != want[r.Control] {
			t.Errorf("%s: okto - %s labelled %q, want %q", r.Split, r.Control, r.TreatmentLabel, want[r.Control])
		}
	}
}
