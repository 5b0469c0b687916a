package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/internal/feedbacktest"
	"github.com/sqlrl/sqlrl/train"
)

// TestTrainRLCommands trains a tiny SFT run on the generator's tiny
// benchmark, then online KTO from it, writes a rollouts file with
// -sample-only and trains offline DPO on it; and checks that bad input
// stops before any work with a message that names the problem.
func TestTrainRLCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("trains")
	}
	dir := t.TempDir()
	b := tinyBench(t, dir)
	sft := func(out string, extra ...string) {
		args := append([]string{"train", "sft", "-q", "-out", out, "-preset", "tiny", "-dim", "32", "-layers", "1", "-heads", "2",
			"-vocab", "400", "-max-steps", "2", "-eval-every", "-1", "-threads", "1"}, extra...)
		if _, stderr, code := sqlrl(t, append(args, b)...); code != 0 {
			t.Fatalf("sft: exit %d: %s", code, stderr)
		}
	}
	init, init100 := filepath.Join(dir, "sft"), filepath.Join(dir, "sft100")
	sft(init)
	sft(init100, "-sft-fraction", "1")
	small := []string{"-steps", "2", "-prompts", "2", "-k", "2", "-max-tokens", "8", "-eval-every", "-1", "-threads", "1", "-q"}
	rl := func(algo string, args ...string) (string, int) {
		_, stderr, code := sqlrl(t, append(append(append([]string{"train", algo}, small...), args...), b)...)
		return stderr, code
	}
	if stderr, code := rl("kto", "-init", init, "-out", filepath.Join(dir, "kto"), "-reward", "exec"); code != 0 {
		t.Fatalf("kto: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "kto", "train_log.jsonl")); err != nil {
		t.Fatal(err)
	}
	// the recipe's settings by default: x4 schema orders, micro-batched scoring
	fp := runFingerprint(t, filepath.Join(dir, "kto"))
	if fp["augment"] != "4" || fp["score_batch"] != "8" {
		t.Errorf("default augment %q, score batch %q; want 4 and 8", fp["augment"], fp["score_batch"])
	}
	// -replay renames as -init's SFT renamed: the recipe's (unrecorded)
	// after a default SFT, words at 0.5 after one that renamed words
	initWords := filepath.Join(dir, "sft-words")
	sft(initWords, "-rename-text", "-rename-each", "0.5")
	for _, c := range []struct{ init, want string }{
		{init, ""},
		{initWords, `{"rename":1,"rename_each":0.5,"rename_text":true}`}, // as its settings record it
	} {
		out := filepath.Join(t.TempDir(), "kto-replay")
		if stderr, code := rl("kto", "-init", c.init, "-out", out, "-replay", "2"); code != 0 {
			t.Fatalf("kto -replay 2 from %s: exit %d: %s", filepath.Base(c.init), code, stderr)
		}
		if got := runFingerprint(t, out)["replay_as"]; got != c.want {
			t.Errorf("kto -replay 2 from %s: replay_as %q, want %q", filepath.Base(c.init), got, c.want)
		}
	}
	roll := filepath.Join(dir, "rollouts.jsonl")
	if stderr, code := rl("kto", "-init", init, "-out", roll, "-sample-only"); code != 0 {
		t.Fatalf("sample-only: exit %d: %s", code, stderr)
	}
	if stderr, code := rl("dpo", "-init", init, "-out", filepath.Join(dir, "dpo"), "-online=false", "-offline", roll); code != 0 {
		t.Fatalf("offline dpo: exit %d: %s", code, stderr)
	}
	if stderr, code := rl("grpo", "-init", init100, "-out", filepath.Join(dir, "grpo"), "-rl-on", "train", "-reward", "gate"); code != 0 {
		t.Fatalf("grpo on train after SFT-100: exit %d: %s", code, stderr)
	}

	down := httptest.NewServer(nil)
	downURL := down.URL
	down.Close()
	for _, c := range []struct {
		name string
		algo string
		args []string
		want string
	}{
		{"empty holdout", "kto", []string{"-init", init100}, "no holdout questions: -sft-fraction 1 leaves none; use -rl-on train"},
		{"another split", "kto", []string{"-init", init, "-sft-fraction", "0.5"}, "RL must not cut a holdout with questions SFT trained on"},
		{"reward server down", "kto", []string{"-init", init, "-reward-url", downURL}, "is not answering"},
		{"offline ppo", "ppo", []string{"-init", init, "-online=false", "-offline", roll}, "online only"},
		{"unknown reward", "kto", []string{"-init", init, "-reward", "vibes"}, `unknown reward "vibes"`},
		{"no init", "kto", nil, "-init and -out are required"},
		{"init not a checkpoint", "kto", []string{"-init", dir}, "-init"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			stderr, code := rl(c.algo, append(c.args, "-out", out)...)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want %q", code, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(out, "latest")); err == nil {
				t.Error("a checkpoint was written")
			}
		})
	}
}

// runFingerprint reads the settings a run's latest checkpoint records.
func runFingerprint(t *testing.T, run string) map[string]string {
	t.Helper()
	ck, err := os.ReadFile(filepath.Join(run, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Fingerprint map[string]string `json:"fingerprint"`
	}
	readJSONFile(t, filepath.Join(run, strings.TrimSpace(string(ck)), "state.json"), &st)
	return st.Fingerprint
}

// TestTrainRLHelp: --help says what the defaults are and how to bound a
// step's reward time (-query-timeout) and its memory (-score-batch).
func TestTrainRLHelp(t *testing.T) {
	_, stderr, code := sqlrl(t, "train", "kto", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"-augment 4, the default", "-query-timeout", "runaway sample", "-score-batch", "(default 8"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--help does not say %q", want)
		}
	}
}

// TestTrainKTOOnFeedbackExport closes the flywheel through the commands:
// answers and verdicts on questions of the tiny benchmark go into a
// feedback store, `data from-feedback` exports them, and `train kto
// -online=false -offline rollouts.jsonl -questions feedback.json -db-root`
// trains on them (the answer ids are in no split), and online KTO samples
// and scores the same questions; flags that would shape a split's pool are
// refused, as is a rollout of no question of the file.
func TestTrainKTOOnFeedbackExport(t *testing.T) {
	if testing.Short() {
		t.Skip("trains")
	}
	ctx := context.Background()
	dir := t.TempDir()
	b := tinyBench(t, dir)
	init := filepath.Join(dir, "sft")
	if _, stderr, code := sqlrl(t, "train", "sft", "-q", "-out", init, "-preset", "tiny", "-dim", "32", "-layers", "1", "-heads", "2",
		"-vocab", "400", "-max-steps", "2", "-eval-every", "-1", "-threads", "1", b); code != 0 {
		t.Fatalf("sft: exit %d: %s", code, stderr)
	}
	bench, err := dataset.Load(b, "train")
	if err != nil {
		t.Fatal(err)
	}
	storePath := filepath.Join(dir, "feedback.sqlite")
	st, err := feedback.OpenSQLite(ctx, storePath)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	feedbacktest.Record(t, st, bench.Examples[:n], "sft", func(i int) bool { return i%2 == 1 })
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	fb := filepath.Join(dir, "fb")
	if _, stderr, code := sqlrl(t, "data", "from-feedback", "-q", "-store", storePath, "-out", fb); code != 0 {
		t.Fatalf("from-feedback: exit %d: %s", code, stderr)
	}
	questions, rollouts := filepath.Join(fb, "feedback.json"), filepath.Join(fb, "rollouts.jsonl")
	offline := []string{"train", "kto", "-init", init, "-online=false", "-offline", rollouts, "-questions", questions, "-db-root", bench.DBRoot,
		"-steps", "2", "-prompts", "2", "-max-tokens", "8", "-eval-every", "-1", "-threads", "1", "-q"}
	out := filepath.Join(dir, "kto")
	if _, stderr, code := sqlrl(t, append(offline, "-out", out)...); code != 0 {
		t.Fatalf("kto on the feedback export: exit %d: %s", code, stderr)
	}
	fp := runFingerprint(t, out)
	if fp["pool"] != fmt.Sprint(n) || fp["data."+train.NoteRLQuestions] != questions || fp["augment"] != "1" {
		t.Errorf("fingerprint pool %q, questions %q, augment %q; want %d prompts of %s, one schema order", fp["pool"], fp["data."+train.NoteRLQuestions], fp["augment"], n, questions)
	}
	// with BENCH_DIR, its dev split is there for the run's evaluation
	if _, stderr, code := sqlrl(t, append(offline, "-out", filepath.Join(dir, "kto-dev"), b)...); code != 0 {
		t.Fatalf("kto on the feedback export with BENCH_DIR: exit %d: %s", code, stderr)
	}
	// online on the same questions: sampled, scored against their gold over
	// -db-root's databases, in two schema orders each
	onOut := filepath.Join(dir, "kto-online")
	if _, stderr, code := sqlrl(t, "train", "kto", "-init", init, "-questions", questions, "-db-root", bench.DBRoot, "-augment", "2", "-reward", "exec",
		"-steps", "2", "-prompts", "2", "-k", "2", "-max-tokens", "8", "-eval-every", "-1", "-threads", "1", "-q", "-out", onOut); code != 0 {
		t.Fatalf("online kto on a question file: exit %d: %s", code, stderr)
	}
	if fp := runFingerprint(t, onOut); fp["pool"] != fmt.Sprint(2*n) || fp["augment"] != "2" {
		t.Errorf("online fingerprint pool %q, augment %q; want %d prompts, 2 schema orders", fp["pool"], fp["augment"], 2*n)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	raw, err := os.ReadFile(rollouts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(raw), "\n")
	if err := os.WriteFile(bad, append(raw, `{"question_id": 999, "completion": "SELECT 2", "label": false}`+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"sample only", []string{"-init", init, "-questions", questions, "-db-root", bench.DBRoot, "-sample-only"}, "-sample-only is not available"},
		{"offline without a file", []string{"-init", init, "-online=false", "-questions", questions, "-db-root", bench.DBRoot}, "-online=false needs -offline FILE"},
		{"no db root", []string{"-init", init, "-online=false", "-offline", rollouts, "-questions", questions}, "-questions and -db-root go together"},
		{"a split's pool", []string{"-init", init, "-online=false", "-offline", rollouts, "-questions", questions, "-db-root", bench.DBRoot, "-rl-on", "train"}, "-rl-on: -questions takes its prompts from the file"},
		{"rollout of another question", []string{"-init", init, "-online=false", "-offline", bad, "-questions", questions, "-db-root", bench.DBRoot},
			fmt.Sprintf("line %d: question 999 variant 0 is not among the %d questions of %s", lines+1, n, questions)},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			_, stderr, code := sqlrl(t, append(append([]string{"train", "kto", "-q", "-steps", "1", "-out", out}, c.args...), b)...)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want %q", code, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(out, "latest")); err == nil {
				t.Error("a checkpoint was written")
			}
		})
	}
}
