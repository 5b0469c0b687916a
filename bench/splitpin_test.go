package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
)

// splitDigests hashes the files of the named splits under dir, in path
// order: one digest of the question, schema, gold and description files
// (what run IDs depend on, through experiment.Fingerprint), one of the
// .sqlite files (their bytes also depend on the SQLite library's version).
func splitDigests(t *testing.T, dir string, splits []string) (files, dbs string) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range splits {
			if rel == s+".json" || rel == s+"_tables.json" || rel == s+"_gold.sql" || strings.HasPrefix(rel, s+"_databases"+string(filepath.Separator)) {
				paths = append(paths, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	hf, hd := sha256.New(), sha256.New()
	for _, rel := range paths {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		h := hf
		if strings.HasSuffix(rel, ".sqlite") {
			h = hd
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(hf.Sum(nil)[:8]), hex.EncodeToString(hd.Sum(nil)[:8])
}

// TestSplitsPinned: adding the sealed test split changed no byte of the
// splits that existed before it. The digests were computed before the
// test split existed; the bundled reports' run IDs hash these files.
func TestSplitsPinned(t *testing.T) {
	v2 := filepath.Join(t.TempDir(), "v2")
	if _, err := Generate(context.Background(), Options{Preset: "v2-tiny", Seed: 1, Out: v2, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	v1, _ := tiny(t)
	for _, c := range []struct {
		name, dir     string
		splits        []string
		files, sqlite string
	}{
		{"tiny", v1, []string{"train", "dev"}, "7fbf94eda3d5469a", "3d9aad4cf0f7d9b4"},
		{"v2-tiny", v2, V2Splits, "4ffdd41a063710fe", "4c66d4319a21a040"},
	} {
		dev, err := dataset.LoadBIRD(c.dir, "dev")
		if err != nil {
			t.Fatal(err)
		}
		test, err := dataset.LoadTest(c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(test.Examples) != len(dev.Examples) {
			t.Errorf("%s: test has %d questions, dev %d: want dev's size", c.name, len(test.Examples), len(dev.Examples))
		}
		for id := range test.Schemas {
			if dev.Schemas[id] != nil {
				t.Errorf("%s: database %s is in dev and test", c.name, id)
			}
		}
		f, d := splitDigests(t, c.dir, c.splits)
		t.Logf("%s: files %s sqlite %s", c.name, f, d)
		if f != c.files {
			t.Errorf("%s: the files of %s hash to %s, want %s: a change moved the splits that results cite", c.name, strings.Join(c.splits, ", "), f, c.files)
		}
		if d != c.sqlite {
			t.Errorf("%s: the databases of %s hash to %s, want %s (a new SQLite library version changes this digest alone)", c.name, strings.Join(c.splits, ", "), d, c.sqlite)
		}
	}
}
