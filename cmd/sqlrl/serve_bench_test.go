package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/internal/pgtest"
)

// benchServeConfig writes a serve config over the bundled databases, with
// the store given (empty: feedback.sqlite beside the config), and returns
// its path. The generator is a placeholder: serve bench replaces it with
// its fake model.
func benchServeConfig(t *testing.T, store string) string {
	t.Helper()
	dir := t.TempDir()
	root, _ := filepath.Abs("../../datasets/bird-dev-sample/dev_databases")
	// A relative database path: serve bench must resolve it against the
	// config's folder although it runs the servers on a copy elsewhere.
	rel, err := filepath.Rel(dir, filepath.Join(root, "student_club", "student_club.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERVE_BENCH_TEST_KEY", "serve-bench-key-0123456789")
	cfg := map[string]any{
		"databases": map[string]any{"superhero": map[string]string{"sqlite": filepath.Join(root, "superhero", "superhero.sqlite")},
			"student_club": map[string]string{"sqlite": rel}},
		"generator": map[string]any{"openai": map[string]string{"base_url": "http://127.0.0.1:9/v1", "model": "unused"}},
		"api_keys":  map[string]any{"bench": map[string]string{"env": "SERVE_BENCH_TEST_KEY"}},
	}
	if store != "" {
		cfg["store"] = store
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(dir, "serve.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runServeBench runs `sqlrl serve bench` in-process; the servers it starts
// are this test binary run as sqlrl (TestMain, SQLRL_TEST_MAIN=1).
func runServeBench(t *testing.T, args ...string) (*askserver.BenchReport, string) {
	t.Helper()
	t.Setenv("SQLRL_TEST_MAIN", "1")
	out := filepath.Join(t.TempDir(), "report.json")
	stdout, stderr, code := sqlrlOS(t, append([]string{"serve", "bench", "-json", out}, args...)...)
	text := stdout + stderr
	if code != 0 {
		t.Fatalf("serve bench %v: exit %d\n%s", args, code, text)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := &askserver.BenchReport{LoadReport: &askserver.LoadReport{}}
	if err := json.Unmarshal(b, rep); err != nil {
		t.Fatal(err)
	}
	t.Log(text)
	return rep, text
}

// checkBench: requests were answered on both routes with no HTTP error,
// every acknowledged write was found, and the report says so.
func checkBench(t *testing.T, rep *askserver.BenchReport, text string) {
	t.Helper()
	for _, route := range []string{askserver.RouteAsk, askserver.RouteFeedback} {
		r := rep.Routes[route]
		if r == nil || r.OK == 0 || r.HTTPErrors() != 0 || r.P50MS <= 0 || r.P99MS < r.P50MS {
			t.Errorf("%s: %+v", route, r)
		}
	}
	if !rep.Verified || rep.Lost != 0 || rep.AckedAnswers == 0 || rep.AckedFeedback == 0 || rep.Outcomes["write_attempt"] == 0 {
		t.Errorf("report %+v", rep.LoadReport)
	}
	if !strings.Contains(text, "lost or altered in the store: 0") || !strings.Contains(text, "p99") {
		t.Errorf("text report:\n%s", text)
	}
}

func TestServeBench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	cfg := benchServeConfig(t, "")
	rep, text := runServeBench(t, "-config", cfg, "-clients", "8", "-duration", "2s")
	checkBench(t, rep, text)
	if rep.Routes[askserver.RouteAsk].ConnErrors != 0 {
		t.Errorf("connection errors without a kill: %+v", rep.Routes[askserver.RouteAsk])
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), "feedback.sqlite")); err != nil {
		t.Errorf("the config's store beside it was not used: %v", err)
	}
}

// TestServeBenchKill: the server is SIGKILLed a second into the run and
// restarted; every write it acknowledged before is in the store.
func TestServeBenchKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	store := filepath.Join(t.TempDir(), "fb.sqlite")
	rep, text := runServeBench(t, "-config", benchServeConfig(t, ""), "-store", store, "-clients", "8", "-duration", "4s", "-kill-after", "1500ms")
	checkBench(t, rep, text)
	if rep.Disrupted == 0 || rep.DisruptError != "" || !strings.Contains(text, "killed (SIGKILL) and serving again") {
		t.Errorf("no kill and restart: %+v\n%s", rep.LoadReport, text)
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("-store not used: %v", err)
	}
}

// TestServeBenchReplicasPostgres: two servers share a PostgreSQL store,
// one is SIGKILLed mid-run, and nothing either acknowledged is lost.
func TestServeBenchReplicasPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	db := pgtest.NewDB(t)
	rep, text := runServeBench(t, "-config", benchServeConfig(t, db.Admin), "-replicas", "2", "-clients", "8", "-duration", "4s", "-kill-after", "1500ms")
	checkBench(t, rep, text)
	if rep.Targets != 2 || rep.Disrupted == 0 || rep.DisruptError != "" {
		t.Errorf("report %+v", rep.LoadReport)
	}
}

func TestServeBenchFlags(t *testing.T) {
	sqlite := benchServeConfig(t, "")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "-config is required"},
		{[]string{"-config", sqlite, "-feedback-share", "2"}, 2, "want 0 to 1"},
		{[]string{"-config", sqlite, "-model", "gpt"}, 2, "want fake or config"},
		{[]string{"-config", sqlite, "-duration", "2s", "-kill-after", "3s"}, 2, "within -duration"},
		{[]string{"-config", sqlite, "-replicas", "2"}, 2, "replicas share a PostgreSQL store"},
		{[]string{"-config", filepath.Join(t.TempDir(), "none.json")}, 1, "none.json"},
	} {
		_, errs, code := sqlrl(t, append([]string{"serve", "bench"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s", tt.args, code, tt.code, tt.want, errs)
		}
	}
	if _, errs, code := sqlrl(t, "serve", "bench", "--help"); code != 0 || !strings.Contains(errs, "SIGKILL") {
		t.Errorf("--help: exit %d\n%s", code, errs)
	}
}
