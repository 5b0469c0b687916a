package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// ParseMode reads a metric's name; "" is the benchmark layout's own
// (Spider's for Spider, BIRD's otherwise).
func ParseMode(name string, layout dataset.Layout) (Mode, error) {
	switch m := Mode(name); m {
	case "":
		if layout == dataset.LayoutSpider {
			return ModeSpider, nil
		}
		return ModeBIRD, nil
	case ModeBIRD, ModeSpider:
		return m, nil
	}
	return "", fmt.Errorf("%q: want bird or spider", name)
}

// Levels are the difficulty levels a mode's benchmark reports by.
func Levels(m Mode) []string {
	if m == ModeSpider {
		return []string{"easy", "medium", "hard", "extra"}
	}
	return []string{"simple", "moderate", "challenging"}
}

// ParseKs reads comma-separated positive k of pass@k ("1,5,8").
func ParseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil || k <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// SuiteOf lists every .sqlite file beside a database's own, as the Spider
// test-suite evaluator does (Scorer.Suite).
func SuiteOf(e *sqlexec.SQLite) func(db string) []string {
	return func(db string) []string {
		own := e.Path(db)
		matches, _ := filepath.Glob(filepath.Join(filepath.Dir(own), "*.sqlite*"))
		if len(matches) == 0 {
			return []string{own}
		}
		return matches
	}
}

// WriteVerdicts writes the per-question verdicts as JSON lines.
func WriteVerdicts(path string, qs []QuestionResult) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write verdicts: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for i := range qs {
		if err := enc.Encode(&qs[i]); err != nil {
			f.Close()
			return fmt.Errorf("write verdicts %s: %w", path, err)
		}
	}
	return f.Close()
}
