package dataset

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// ErrSplit is what CheckSplit's errors are (errors.Is): a directory or
// split named wrongly, which a command reports as a usage error.
var ErrSplit = errors.New("no such benchmark split")

// splitError is one of CheckSplit's errors: its text, and ErrSplit.
type splitError string

func (e splitError) Error() string        { return string(e) }
func (e splitError) Is(target error) bool { return target == ErrSplit }

// CheckSplit reports the most common mistake, a directory without split
// (a BIRD directory whose split is not "train", such as BIRD dev), with an
// error that names the splits the directory has. Spider's layout has
// every split.
func CheckSplit(dir, split string) error {
	if !isDir(dir) {
		return splitError(fmt.Sprintf("%s is not a directory", dir))
	}
	if isDir(filepath.Join(dir, split+"_databases")) || isDir(filepath.Join(dir, "database")) {
		return nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*_databases"))
	var splits []string
	for _, m := range matches {
		if isDir(m) {
			splits = append(splits, strings.TrimSuffix(filepath.Base(m), "_databases"))
		}
	}
	if len(splits) == 0 {
		return splitError(fmt.Sprintf("%s has neither BIRD's layout (<split>_databases/) nor Spider's (database/)", dir))
	}
	sort.Strings(splits)
	return splitError(fmt.Sprintf("%s has no split %q (no %s_databases/); it has: %s (choose with -split)", dir, split, split, strings.Join(splits, ", ")))
}

// LoadSplit reads split from dir: a file's split (Load) or a part of train
// (PartHoldout, PartHeldOut) cut as p says. p.RLFraction only matters for
// PartHeldOut.
func LoadSplit(dir, split string, p Parts) (*Benchmark, error) {
	if !IsPart(split) {
		return Load(dir, split)
	}
	if split != PartHeldOut {
		p.RLFraction = 0
	}
	return LoadPart(dir, split, p)
}

// GoldSource is where an evaluation's gold side comes from: a benchmark
// directory's split or part of train, or a gold file of SQL<TAB>db_id lines
// over a database root.
type GoldSource struct {
	// Dir and Split are the benchmark; Parts cut a part of train.
	Dir, Split string
	Parts      Parts
	// GoldFile, when set, is read instead of Dir; it needs DBRoot.
	GoldFile string
	// DBRoot holds <db>/<db>.sqlite; for a benchmark it overrides the
	// benchmark's own.
	DBRoot string
	// Questions is a BIRD/Spider question file whose difficulties, ids and
	// questions are merged into GoldFile's examples, line by line.
	Questions string
}

// LoadGold reads the gold side of an evaluation. The benchmark's Questions
// is the file the gold came from: the benchmark's question file, or
// GoldFile.
func LoadGold(g GoldSource) (*Benchmark, error) {
	if g.GoldFile == "" {
		b, err := LoadSplit(g.Dir, g.Split, g.Parts)
		if err != nil {
			return nil, err
		}
		if g.DBRoot != "" {
			b.DBRoot = g.DBRoot
		}
		return b, nil
	}
	if g.DBRoot == "" {
		return nil, fmt.Errorf("gold %s: no database root", g.GoldFile)
	}
	exs, err := ReadGoldSQL(g.GoldFile)
	if err != nil {
		return nil, err
	}
	b := &Benchmark{Layout: LayoutBIRD, DBRoot: g.DBRoot, Questions: g.GoldFile, Examples: exs}
	if g.Questions == "" {
		return b, nil
	}
	qb, err := LoadQuestions(g.Questions)
	if err != nil {
		return nil, err
	}
	qs := qb.Examples
	b.Layout = qb.Layout
	if len(qs) != len(exs) {
		return nil, fmt.Errorf("%s has %d questions but %s has %d gold queries", g.Questions, len(qs), g.GoldFile, len(exs))
	}
	for i := range exs {
		if qs[i].DBID != exs[i].DBID {
			return nil, fmt.Errorf("%s: line %d is on %q but question %d of %s is on %q", g.GoldFile, i+1, exs[i].DBID, i, g.Questions, qs[i].DBID)
		}
		exs[i].Difficulty, exs[i].QuestionID, exs[i].Question = qs[i].Difficulty, qs[i].QuestionID, qs[i].Question
	}
	return b, nil
}
