package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// sealedBench is a BIRD-layout directory whose test split is the bundled
// sample's dev split.
func sealedBench(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"dev.json", "test.json"}, {"dev_tables.json", "test_tables.json"}, {"dev_databases", "test_databases"}} {
		if err := os.Symlink(filepath.Join(abs, l[0]), filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTestSplitSealed: every loader but LoadTest refuses the test split.
func TestTestSplitSealed(t *testing.T) {
	dir := sealedBench(t)
	for _, c := range []struct {
		name string
		load func() (*Benchmark, error)
	}{
		{"Load", func() (*Benchmark, error) { return Load(dir, SplitTest) }},
		{"LoadBIRD", func() (*Benchmark, error) { return LoadBIRD(dir, SplitTest) }},
		{"LoadSplit", func() (*Benchmark, error) { return LoadSplit(dir, SplitTest, Parts{}) }},
		{"LoadGold", func() (*Benchmark, error) { return LoadGold(GoldSource{Dir: dir, Split: SplitTest}) }},
		{"SplitFlags", func() (*Benchmark, error) { return (&SplitFlags{Split: SplitTest}).Load(dir, 0) }},
	} {
		if _, err := c.load(); !errors.Is(err, ErrSealed) {
			t.Errorf("%s read the sealed split: %v", c.name, err)
		}
	}
	b, err := LoadTest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Examples) != 287 || b.DBRoot != filepath.Join(dir, "test_databases") {
		t.Errorf("LoadTest: %d examples over %s, want 287 over test_databases", len(b.Examples), b.DBRoot)
	}
}
