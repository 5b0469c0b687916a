package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadGold reads the gold side from the benchmark and from a gold file
// merged with the benchmark's questions; a gold file whose lines do not
// match the questions fails.
func TestLoadGold(t *testing.T) {
	b, err := Load(sample, "dev")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var lines []string
	for _, ex := range b.Examples {
		lines = append(lines, strings.ReplaceAll(ex.SQL, "\n", " ")+"\t"+ex.DBID)
	}
	gold := filepath.Join(dir, "gold.sql")
	os.WriteFile(gold, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	short := filepath.Join(dir, "short.sql")
	os.WriteFile(short, []byte(lines[0]+"\n"), 0o644)
	for _, c := range []struct {
		name    string
		g       GoldSource
		root    string
		src     string
		wantErr string
	}{
		{name: "benchmark", g: GoldSource{Dir: sample, Split: "dev"}, root: b.DBRoot, src: b.Questions},
		{name: "root override", g: GoldSource{Dir: sample, Split: "dev", DBRoot: "elsewhere"}, root: "elsewhere", src: b.Questions},
		{name: "gold file", g: GoldSource{GoldFile: gold, DBRoot: b.DBRoot, Questions: b.Questions}, root: b.DBRoot, src: gold},
		{name: "no root", g: GoldSource{GoldFile: gold}, wantErr: "no database root"},
		{name: "mismatch", g: GoldSource{GoldFile: short, DBRoot: b.DBRoot, Questions: b.Questions}, wantErr: "gold queries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := LoadGold(c.g)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.DBRoot != c.root || got.Questions != c.src || len(got.Examples) != len(b.Examples) {
				t.Fatalf("root %q src %q %d examples", got.DBRoot, got.Questions, len(got.Examples))
			}
			for i, ex := range got.Examples {
				if ex.QuestionID != b.Examples[i].QuestionID || ex.Difficulty != b.Examples[i].Difficulty {
					t.Fatalf("example %d: %+v", i, ex)
				}
			}
		})
	}
}

func TestCheckSplit(t *testing.T) {
	for _, c := range []struct{ dir, split, want string }{
		{sample, "dev", ""},
		{sample, "train", `no split "train" (no train_databases/); it has: dev`},
		{"testdata", "dev", "neither BIRD's layout"},
		{"gold.go", "dev", "is not a directory"},
	} {
		err := CheckSplit(c.dir, c.split)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrSplit)) {
			t.Errorf("CheckSplit(%s, %s) = %v, want %q (an ErrSplit)", c.dir, c.split, err, c.want)
		}
	}
}

// SplitFlags.Load checks the directory, then reads the split and its first
// limit examples.
func TestSplitFlagsLoad(t *testing.T) {
	s := SplitFlags{Split: "dev"}
	b, err := s.Load(sample, 3)
	if err != nil || len(b.Examples) != 3 || len(b.GoldSQL()) != 3 {
		t.Fatalf("Load(%s, 3) = %v, %v", sample, b, err)
	}
	if _, err := (&SplitFlags{Split: "holdout"}).Load(sample, 0); !errors.Is(err, ErrSplit) {
		t.Errorf("holdout of a directory without train: %v, want an ErrSplit", err)
	}
}
