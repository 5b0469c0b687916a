package benchstats

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
)

// loadedSplit is one split's questions and databases.
type loadedSplit struct {
	name  string
	bench *dataset.Benchmark
}

// discover finds and loads the splits of the benchmark in dir. In BIRD's
// layout a split is <name>.json next to <name>_databases/; a dev_*.json
// without databases of its own (a split that reuses dev's or train's) is
// read with the first of dev_databases/ and train_databases/ that holds
// its databases. The sealed test split (dataset.SplitTest) is not read.
// In Spider's layout (database/) every question file is a split. Train comes first, then dev, then the rest by name.
func discover(dir string, want []string) ([]loadedSplit, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read benchmark %s: %w", dir, err)
	}
	spider := isDir(filepath.Join(dir, "database"))
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") {
			continue
		}
		split := strings.TrimSuffix(n, ".json")
		switch {
		case split == "tables" || strings.HasSuffix(split, "_tables"):
		case split == dataset.SplitTest && !spider: // sealed: only a final evaluation reads it
		case spider:
			names = append(names, split)
		case isDir(filepath.Join(dir, split+"_databases")),
			split == "dev" || strings.HasPrefix(split, "dev_"):
			names = append(names, split)
		}
	}
	if len(want) > 0 {
		for _, w := range want {
			if !slices.Contains(names, w) {
				return nil, fmt.Errorf("benchmark %s: no split %q (found: %s)", dir, w, strings.Join(names, ", "))
			}
		}
		names = want
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("benchmark %s: no split found (want <split>.json with <split>_databases/, or Spider's database/)", dir)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := splitRank(a), splitRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	out := make([]loadedSplit, 0, len(names))
	for _, n := range names {
		b, err := loadSplit(dir, n, spider)
		if err != nil {
			return nil, err
		}
		out = append(out, loadedSplit{name: n, bench: b})
	}
	return out, nil
}

func splitRank(name string) int {
	switch name {
	case "train":
		return 0
	case "dev":
		return 1
	}
	return 2
}

func loadSplit(dir, split string, spider bool) (*dataset.Benchmark, error) {
	if spider || isDir(filepath.Join(dir, split+"_databases")) {
		return dataset.Load(dir, split)
	}
	// A dev split sharing another split's databases and tables file.
	path := filepath.Join(dir, split+".json")
	b, err := dataset.LoadQuestions(path)
	if err != nil {
		return nil, err
	}
	for _, other := range []string{"dev", "train"} {
		root := filepath.Join(dir, other+"_databases")
		if !isDir(root) || !hasAllDBs(root, b.Examples) {
			continue
		}
		b.Dir, b.DBRoot = dir, root
		tables := filepath.Join(dir, other+"_tables.json")
		if _, err := os.Stat(tables); err == nil {
			if b.Schemas, err = dataset.ReadTables(tables); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: no %s_databases/ and neither dev_databases/ nor train_databases/ holds all its databases", path, split)
}

func hasAllDBs(root string, exs []dataset.Example) bool {
	seen := map[string]bool{}
	for _, ex := range exs {
		if seen[ex.DBID] {
			continue
		}
		seen[ex.DBID] = true
		if _, err := os.Stat(filepath.Join(root, ex.DBID, ex.DBID+".sqlite")); err != nil {
			return false
		}
	}
	return true
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// ParseTarget reads a command line's DIR[:split]. A colon followed by a
// path separator belongs to the directory (C:\bench, a/b:c/d).
func ParseTarget(v string) (dir, split string) {
	i := strings.LastIndex(v, ":")
	if i <= 0 || i == len(v)-1 || strings.ContainsAny(v[i+1:], `/\`) {
		return v, ""
	}
	return v[:i], v[i+1:]
}
