package askserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// nativeServer is a server of a tiny random checkpoint over superhero.
func nativeServer(t *testing.T) *Server {
	t.Helper()
	dir := t.TempDir()
	tinyCheckpoint(t, filepath.Join(dir, "ckpt"), policy.Format{Kind: policy.FormatCompact})
	s, err := configServer(t, dir, fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}}, "generator": {"native": "ckpt", "max_tokens": 16, "slots": 4}}`, benchDB(t, "superhero")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNativeGenerator serves a tiny random policy saved as a checkpoint:
// concurrent questions are decoded through the batcher, guided to the
// schema, and every answer is recorded with the native model's name.
func TestNativeGenerator(t *testing.T) {
	s := nativeServer(t)
	_, ts := serveTest(t, s)
	var wg sync.WaitGroup
	outs := make([]map[string]any, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, outs[i] = call(t, ts, "POST", "/api/ask", "", map[string]string{"db": "superhero", "question": fmt.Sprintf("how many heroes %d?", i)})
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if id, _ := out["answer_id"].(float64); id <= 0 || out["model"] != "native:ckpt" {
			t.Errorf("question %d: %v", i, out)
		}
		if e, _ := out["error"].(map[string]any); e != nil && (strings.HasPrefix(e["class"].(string), "generation") || e["class"] == ClassSchema || out["sql"] == "") {
			t.Errorf("question %d: the policy failed: %v", i, e)
		}
	}
	if code, out := call(t, ts, "POST", "/api/admin/reload", "", nil); code != 401 {
		t.Errorf("reload without key: %d %v", code, out)
	}
}

// TestCheckpointLabel: answers name a native model by its run and step,
// not by a path of the server's disk.
func TestCheckpointLabel(t *testing.T) {
	root := t.TempDir()
	f := policy.Format{Kind: policy.FormatCompact}
	tinyCheckpoint(t, filepath.Join(root, "sft", "step-000002"), f)
	os.WriteFile(filepath.Join(root, "sft", policy.FileLatest), []byte("step-000002\n"), 0o644)
	tinyCheckpoint(t, filepath.Join(root, "rl-1", policy.RunTrainDir, "step-000004"), f)
	os.WriteFile(filepath.Join(root, "rl-1", policy.RunTrainDir, policy.FileLatest), []byte("step-000004\n"), 0o644)
	for _, tt := range []struct{ dir, want string }{
		{"sft", "sft/step-000002"},
		{"sft/step-000002", "step-000002"},
		{"rl-1", "rl-1/train/step-000004"},
		{"rl-1/train", "rl-1/train/step-000004"},
		{"missing", "missing"},
	} {
		if got := checkpointLabel(filepath.Join(root, tt.dir)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.dir, got, tt.want)
		}
	}
}

// tinyCheckpoint saves a tiny random policy in format f at dir.
func tinyCheckpoint(t *testing.T, dir string, f policy.Format) {
	t.Helper()
	corpus := []string{"SELECT COUNT(*) FROM superhero WHERE id = 1", "superhero: id integer key, superhero_name text", "question: how many heroes?"}
	var texts []string
	for range 20 {
		texts = append(texts, corpus...)
	}
	tok, err := tokenizer.Train(texts, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	cfg := nn.Config{Vocab: tok.VocabSize(), Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: 1024}
	pol, err := policy.New(tok, "", cfg, f, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.Save(dir); err != nil {
		t.Fatal(err)
	}
}

// TestNativePostgres serves a PostgreSQL database with the native policy:
// a compact checkpoint is prompted from the schema package prompt's
// catalog reads from pg_catalog (it failed every ask with `relation
// "sqlite_master" does not exist`); a text-format one, whose prompts name
// SQLite, is refused at start with the database named and what to do.
func TestNativePostgres(t *testing.T) {
	d := pgtest.CopySample(t)
	dir := t.TempDir()
	tinyCheckpoint(t, filepath.Join(dir, "compact"), policy.Format{Kind: policy.FormatCompact, Types: true})
	tinyCheckpoint(t, filepath.Join(dir, "text"), policy.Format{Kind: policy.FormatText})
	open := func(ckpt string) (*Server, error) {
		return configServer(t, dir, fmt.Sprintf(`{"databases": {"heroes": {"postgres": %q, "schema": "superhero"}}, "generator": {"native": %q, "max_tokens": 16, "slots": 2}}`, d.ReadOnly, ckpt))
	}
	if _, err := open("text"); err == nil || !strings.Contains(err.Error(), "databases heroes are PostgreSQL") || !strings.Contains(err.Error(), "compact") {
		t.Errorf("text-format checkpoint on PostgreSQL: %v; want a refusal naming heroes", err)
	}
	s, err := open("compact")
	if err != nil {
		t.Fatal(err)
	}
	_, ts := serveTest(t, s)
	_, out := call(t, ts, "POST", "/api/ask", "", map[string]string{"db": "heroes", "question": "How many superheroes are there?"})
	if e, _ := out["error"].(map[string]any); e != nil && (strings.HasPrefix(e["class"].(string), "generation") || e["class"] == ClassSchema) || out["sql"] == "" {
		t.Errorf("ask on PostgreSQL: %v", out)
	}
}

// TestGenerateSampled: the answer and samples drawn from one fitted
// prompt are those Generate and Sample draw fitting it each.
func TestGenerateSampled(t *testing.T) {
	s := nativeServer(t)
	g, ok := s.gen.(*NativeGenerator)
	if !ok {
		t.Fatalf("generator %T", s.gen)
	}
	ctx := context.Background()
	q := Question{DB: "superhero", Question: "how many heroes are blue?"}
	o := SampleOptions{N: 3, Temperature: 1, Seed: 7}
	sql, samples, err := g.GenerateSampled(ctx, q, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.Generate(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	wantSamples, err := g.Sample(ctx, q, o)
	if err != nil {
		t.Fatal(err)
	}
	if sql != want || strings.Join(samples, "\n") != strings.Join(wantSamples, "\n") {
		t.Errorf("one fit: %q %q; a fit each: %q %q", sql, samples, want, wantSamples)
	}
}
