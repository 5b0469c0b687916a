package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
)

// TestEvaluateRefusesBadInput runs `sqlrl eval`'s Evaluate on the inputs
// issue 39 found scored with exit 0: bytes that are not UTF-8 in a
// prediction, a gold query or a question, an empty question list, and a
// gold query longer than the engine runs. Each must stop the evaluation
// before anything is scored, naming the file and the line (or record).
func TestEvaluateRefusesBadInput(t *testing.T) {
	const sample = "../datasets/bird-dev-sample"
	root, err := filepath.Abs(filepath.Join(sample, "dev_databases"))
	if err != nil {
		t.Fatal(err)
	}
	gold, err := os.ReadFile(filepath.Join(sample, "dev_gold.sql"))
	if err != nil {
		t.Fatal(err)
	}
	goldLines := strings.Split(strings.TrimSpace(string(gold)), "\n")
	sqlOnly := make([]string, len(goldLines))
	for i, l := range goldLines {
		sqlOnly[i], _, _ = strings.Cut(l, "\t")
	}
	with := func(lines []string, i int, f func(string) string) string {
		out := append([]string(nil), lines...)
		out[i] = f(out[i])
		return strings.Join(out, "\n") + "\n"
	}
	badByte := func(s string) string { return strings.Replace(s, "SELECT", "SELECT /*\xff*/", 1) }
	tests := []struct {
		name  string
		files map[string]string // written in a temporary directory
		cfg   func(dir string) Config
		want  []string
	}{
		{"prediction not UTF-8", map[string]string{"p.sql": with(sqlOnly, 2, badByte)},
			func(dir string) Config {
				return Config{Gold: dataset.GoldSource{Dir: sample, Split: "dev"}, Pred: filepath.Join(dir, "p.sql")}
			}, []string{"p.sql", "line 3", "invalid UTF-8"}},
		{"gold not UTF-8", map[string]string{"gold.sql": with(goldLines, 1, badByte)},
			func(dir string) Config {
				return Config{Gold: dataset.GoldSource{GoldFile: filepath.Join(dir, "gold.sql"), DBRoot: root}, GoldAsPred: true}
			}, []string{"gold.sql", "line 2", "invalid UTF-8"}},
		{"gold of 2 MB", map[string]string{"gold.sql": with(goldLines, 0, func(s string) string {
			return strings.Replace(s, "SELECT", "SELECT /*"+strings.Repeat("x", 2<<20)+"*/", 1)
		})},
			func(dir string) Config {
				return Config{Gold: dataset.GoldSource{GoldFile: filepath.Join(dir, "gold.sql"), DBRoot: root}, GoldAsPred: true}
			}, []string{"gold.sql", "line 1", "gold SQL of", "the limit is"}},
		{"question not UTF-8", map[string]string{"dev.json": "[\n{\"question_id\": 0, \"db_id\": \"superhero\", \"question\": \"how m\xe4ny\", \"SQL\": \"SELECT 1\"}\n]\n"},
			func(dir string) Config {
				return Config{Gold: dataset.GoldSource{Dir: dir, Split: "dev", DBRoot: root}, GoldAsPred: true}
			}, []string{"dev.json", "line 2", "invalid UTF-8"}},
		{"no questions", map[string]string{"dev.json": "[]\n"},
			func(dir string) Config {
				return Config{Gold: dataset.GoldSource{Dir: dir, Split: "dev", DBRoot: root}, GoldAsPred: true}
			}, []string{"dev.json", "no questions"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(root, filepath.Join(dir, "dev_databases")); err != nil {
				t.Fatal(err)
			}
			c := tc.cfg(dir)
			c.Engine = "sqlite"
			ev, err := Evaluate(context.Background(), c)
			if err == nil {
				t.Fatalf("scored: EX %v", ev.Report)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
