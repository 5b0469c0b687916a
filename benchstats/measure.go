package benchstats

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// maxWarnings bounds the warnings kept per split: one broken gold is worth
// reading, a thousand are one problem.
const maxWarnings = 5

// question is what is measured of one example.
type question struct {
	ex       dataset.Example
	shape    *sqlShape // nil when the gold could not be analysed
	rows     int
	cols     int
	execErr  error
	executed bool
	wording  string
	template string
	tokens   int // the gold's length in tokens (Options.Tokens); 0 without
}

// measured is a split with its per-question data, kept for the overlap
// with train.
type measured struct {
	split     *Split
	questions []question
	shapes    map[string]string // db_id -> schema shape
	warnings  []string
}

func measureSplit(ctx context.Context, ls loadedSplit, tm *templater, opts Options) (*measured, error) {
	b := ls.bench
	m := &measured{split: &Split{Name: ls.name, Questions: len(b.Examples)}, shapes: map[string]string{}}
	warn := func(format string, args ...any) {
		if len(m.warnings) < maxWarnings {
			m.warnings = append(m.warnings, fmt.Sprintf(format, args...))
		}
	}
	for _, w := range b.Warnings {
		warn("%s", w)
	}
	m.split.Schema = schemaStats(b)
	for id, s := range b.Schemas {
		m.shapes[id] = schemaShape(s)
	}
	qs := make([]question, len(b.Examples))
	for i, ex := range b.Examples {
		q := question{ex: ex, wording: normWording(ex.Question)}
		if sh, err := analyzeSQL(ex.SQL); err != nil {
			warn("%s: question %d: analyse gold: %v", b.Questions, ex.QuestionID, err)
		} else {
			q.shape = sh
		}
		lits := []string(nil)
		if q.shape != nil {
			lits = q.shape.Strings
		}
		q.template = tm.template(ex.Question, lits)
		if opts.Tokens != nil {
			q.tokens = opts.Tokens(ex.SQL)
		}
		qs[i] = q
	}
	if !opts.NoExec {
		if err := execute(ctx, b, ls.name, qs, opts); err != nil {
			return nil, err
		}
		for _, q := range qs {
			if q.execErr != nil {
				warn("%s: question %d (%s): gold failed: %v", b.Questions, q.ex.QuestionID, q.ex.DBID, q.execErr)
			}
		}
	}
	m.questions = qs
	m.split.All = group("all", qs, b.Schemas, opts)
	for _, tier := range tiers(b) {
		var sub []question
		for _, q := range qs {
			if tierOf(q.ex) == tier {
				sub = append(sub, q)
			}
		}
		m.split.Tiers = append(m.split.Tiers, group(tier, sub, b.Schemas, opts))
	}
	return m, nil
}

func tierOf(ex dataset.Example) string {
	if ex.Difficulty == "" {
		return "unlabelled"
	}
	return ex.Difficulty
}

// tiers lists the difficulty values present, in the benchmark's order, then
// any others by name.
func tiers(b *dataset.Benchmark) []string {
	present := map[string]bool{}
	for _, ex := range b.Examples {
		present[tierOf(ex)] = true
	}
	var out []string
	for _, l := range b.DifficultyLevels() {
		if present[l] {
			out = append(out, l)
			delete(present, l)
		}
	}
	var rest []string
	for l := range present {
		rest = append(rest, l)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// execute runs every gold read-only and records its result's shape.
func execute(ctx context.Context, b *dataset.Benchmark, split string, qs []question, opts Options) error {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot, Limits: sqlexec.Limits{Timeout: timeout, MaxBytes: sqlexec.DefaultMaxResultBytes}})
	defer eng.Close()
	checked := map[string]bool{}
	for _, q := range qs {
		if !checked[q.ex.DBID] {
			checked[q.ex.DBID] = true
			if err := eng.Check(q.ex.DBID); err != nil {
				return fmt.Errorf("%s: question %d: %w", b.Questions, q.ex.QuestionID, err)
			}
		}
	}
	var bar *progress.Bar
	if opts.Progress != nil {
		bar = progress.New(opts.Progress, "run golds of "+split, len(qs))
	}
	err := parallel.For(ctx, len(qs), workers, func(ctx context.Context, i int) error {
		q := &qs[i]
		rows := 0
		res, err := eng.QueryRows(ctx, q.ex.DBID, q.ex.SQL, func(_ []string, row []sqlexec.Value) bool {
			if row != nil {
				rows++
			}
			return true
		})
		if err != nil {
			q.execErr = err
		} else {
			q.executed, q.rows, q.cols = true, rows, len(res.Columns)
		}
		bar.Add(1)
		return nil
	})
	bar.Finish()
	if err != nil {
		return fmt.Errorf("run golds of %s: %w", b.Questions, err)
	}
	return nil
}

func group(tier string, qs []question, schemas map[string]*dataset.Schema, opts Options) *Group {
	g := &Group{Tier: tier, Questions: len(qs)}
	if opts.Tokens != nil {
		g.GoldTokens = tokenLengths(qs, opts.Budgets)
	}
	g.Features = features(qs)
	g.Answers = answers(qs)
	g.Literals = literals(qs, schemas)
	skel := map[string]bool{}
	for _, q := range qs {
		if q.shape != nil {
			skel[q.shape.Skeleton] = true
		}
	}
	g.Skeletons = len(skel)
	g.SkeletonsPerQuestion = ratio(len(skel), len(qs))
	return g
}

func tokenLengths(qs []question, budgets []int) *TokenLengths {
	ls := make([]int, len(qs))
	for i, q := range qs {
		ls[i] = q.tokens
	}
	slices.Sort(ls)
	t := &TokenLengths{Median: median(ls)}
	if n := len(ls); n > 0 {
		t.P90, t.Max = ls[(9*n+9)/10-1], ls[n-1]
	}
	for _, b := range budgets {
		over := len(ls) - sort.SearchInts(ls, b+1)
		t.Over = append(t.Over, BudgetCount{Budget: b, Golds: over})
	}
	return t
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func features(qs []question) Features {
	var f Features
	var n, join, joins, sub, set, win, cas, cast, arith, agg, grp, hav, ordl, dist, null, date, like int
	for _, q := range qs {
		s := q.shape
		if s == nil {
			continue
		}
		n++
		count := func(c *int, yes bool) {
			if yes {
				*c++
			}
		}
		count(&join, s.Joins > 0)
		joins += s.Joins
		f.JoinsMax = max(f.JoinsMax, s.Joins)
		count(&sub, s.Subqueries > 0)
		f.SubqueriesMax = max(f.SubqueriesMax, s.Subqueries)
		count(&set, s.SetOps > 0)
		count(&win, s.Windows > 0)
		count(&cas, s.Case > 0)
		count(&cast, s.Cast > 0)
		count(&arith, s.Arithmetic > 0)
		count(&agg, s.Aggregates > 0)
		count(&grp, s.GroupBy)
		count(&hav, s.Having)
		count(&ordl, s.OrderLimit)
		count(&dist, s.Distinct)
		count(&null, s.NullTest)
		count(&date, s.DateFunc)
		count(&like, s.Like)
	}
	f.Parsed = n
	f.Join, f.JoinsMean = ratio(join, n), ratio(joins, n)
	f.Subquery, f.SetOp, f.Window = ratio(sub, n), ratio(set, n), ratio(win, n)
	f.Case, f.Cast, f.Arithmetic, f.Aggregate = ratio(cas, n), ratio(cast, n), ratio(arith, n), ratio(agg, n)
	f.GroupBy, f.Having, f.OrderLimit, f.Distinct = ratio(grp, n), ratio(hav, n), ratio(ordl, n), ratio(dist, n)
	f.NullTest, f.DateFunc, f.Like = ratio(null, n), ratio(date, n), ratio(like, n)
	return f
}

func answers(qs []question) Answers {
	var a Answers
	var rows []int
	var cols, empty, one, oneCol int
	for _, q := range qs {
		if q.execErr != nil {
			a.Errors++
		}
		if !q.executed {
			continue
		}
		a.Executed++
		rows = append(rows, q.rows)
		a.RowsMax = max(a.RowsMax, q.rows)
		cols += q.cols
		switch q.rows {
		case 0:
			empty++
		case 1:
			one++
		}
		if q.cols == 1 {
			oneCol++
		}
	}
	a.RowsMedian = median(rows)
	a.Empty, a.OneRow = ratio(empty, a.Executed), ratio(one, a.Executed)
	a.ColumnsMean, a.OneColumn = ratio(cols, a.Executed), ratio(oneCol, a.Executed)
	return a
}

func median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}

func literals(qs []question, schemas map[string]*dataset.Schema) Literals {
	var l Literals
	var withEv, evSQL, evKnow int
	for _, q := range qs {
		question := strings.ToLower(q.ex.Question)
		text := question + "\n" + strings.ToLower(q.ex.Evidence)
		if q.shape != nil {
			for _, s := range q.shape.Strings {
				s = strings.Trim(s, "%")
				if s == "" {
					continue
				}
				l.Strings++
				if s = strings.ToLower(s); strings.Contains(text, s) {
					l.InText++
				}
				if strings.Contains(question, s) {
					l.InQuestion++
				}
			}
		}
		if strings.TrimSpace(q.ex.Evidence) == "" {
			continue
		}
		withEv++
		if evidenceIsSQL(q.ex.Evidence, schemas[q.ex.DBID]) {
			evSQL++
		} else {
			evKnow++
		}
	}
	l.Coverage, l.QuestionCoverage = ratio(l.InText, l.Strings), ratio(l.InQuestion, l.Strings)
	l.WithEvidence = ratio(withEv, len(qs))
	l.EvidenceSQL, l.EvidenceKnowledge = ratio(evSQL, len(qs)), ratio(evKnow, len(qs))
	return l
}

var (
	// sqlHint is SQL syntax in evidence: a comparison, a backquoted name,
	// a function call, a qualified name or an upper-case SQL operator.
	sqlHint  = regexp.MustCompile("[=<>]|`|[A-Za-z_]+\\(|[A-Za-z_][A-Za-z0-9_]+\\.[A-Za-z_][A-Za-z0-9_]+|\\b(?:LIKE|BETWEEN|IS NULL|IS NOT NULL|NOT IN|IN)\\b")
	wordRe   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	refersTo = regexp.MustCompile(`(?i)\brefers? to (?:the )?([A-Za-z_][A-Za-z0-9_]*)`)
)

// evidenceIsSQL tells a SQL fragment ("tier = 'silver'", "full name refers
// to first_name, last_name", "longest refers to MAX(pages)") from knowledge
// text ("most often refers to the largest number of bookings"): SQL syntax
// (sqlHint), a table or column name of the database that has an
// underscore (plain words such as "name" occur in any English sentence),
// or a name of the database right after "refers to".
func evidenceIsSQL(ev string, s *dataset.Schema) bool {
	if sqlHint.MatchString(ev) {
		return true
	}
	if s == nil {
		return false
	}
	names := map[string]bool{}
	for _, t := range s.TableNames {
		names[strings.ToLower(t)] = true
	}
	for _, c := range s.Columns {
		if c.Table >= 0 {
			names[strings.ToLower(c.Name)] = true
		}
	}
	for _, w := range wordRe.FindAllString(ev, -1) {
		if w = strings.ToLower(w); strings.Contains(w, "_") && names[w] {
			return true
		}
	}
	for _, m := range refersTo.FindAllStringSubmatch(ev, -1) {
		if names[strings.ToLower(m[1])] {
			return true
		}
	}
	return false
}
