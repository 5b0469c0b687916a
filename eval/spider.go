package eval

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// SpiderNormalize applies the test-suite evaluator's rewriting to a query
// before execution: "> =" style operators are joined and, unless
// keepDistinct, every DISTINCT keyword is removed (from gold and prediction
// alike), so DISTINCT never decides a verdict.
func SpiderNormalize(sql string, keepDistinct bool) string {
	sql = sqlparse.SpiderPostprocess(sql)
	if !keepDistinct {
		sql = sqlparse.RemoveDistinct(sql)
	}
	return sql
}

// curYear is the test-suite's replace_cur_year: MySQL's YEAR(CURDATE())
// becomes the literal 2020 (Spider's databases date from then) before
// execution, swallowing the whitespace that follows.
var curYear = regexp.MustCompile(`(?i)YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*`)

func (s *Scorer) scoreSpider(ctx context.Context, db, gold, pred string) Outcome {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	if strings.TrimSpace(pred) == "" {
		// The official evaluator crashes on an empty prediction (sqlparse
		// finds no statement); earlier versions of it scored it 0.
		return Outcome{Class: string(sqlexec.ClassSyntax), Error: "empty prediction"}
	}
	// evaluation.py reads the prediction as a stripped line and replaces
	// " value " (a placeholder some Spider models emit) before anything else.
	pred = strings.ReplaceAll(strings.TrimSpace(pred), " value ", " 1 ")
	gold = SpiderNormalize(gold, s.KeepDistinct)
	pred = SpiderNormalize(pred, s.KeepDistinct)
	orderMatters := strings.Contains(strings.ToLower(gold), "order by")
	gold = curYear.ReplaceAllString(gold, "2020")
	pred = curYear.ReplaceAllString(pred, "2020")
	dbs := []string{db}
	if s.Suite != nil {
		dbs = s.Suite(db)
	}
	var out Outcome
	for _, d := range dbs {
		gctx, cancel := context.WithTimeout(ctx, timeout)
		g, gerr := s.GoldResult(gctx, d, gold)
		cancel()
		if gerr != nil {
			return goldFailed(gerr)
		}
		pctx, cancel := context.WithTimeout(ctx, timeout)
		p, perr := s.predResult(pctx, d, pred)
		cancel()
		if perr != nil {
			return failed(perr, g)
		}
		out = Outcome{PredRows: len(p.Rows), GoldRows: len(g.Rows)}
		if !SpiderMatch(spiderDecode(g.Rows), spiderDecode(p.Rows), orderMatters) {
			out.Class = ClassWrong
			return out
		}
		if s.KeepResults {
			out.Pred, out.Gold = p, g
		}
	}
	out.Correct, out.Class, out.SoftF1 = true, ClassCorrect, 1
	return out
}

// spiderDecode returns rows with text decoded as the test-suite evaluator's
// connection decodes it (bytes.decode(errors="ignore"): invalid UTF-8
// dropped). Rows come from a shared cache, so they are copied, never edited.
func spiderDecode(rows [][]sqlexec.Value) [][]sqlexec.Value {
	if !hasInvalidUTF8(rows) {
		return rows
	}
	out := make([][]sqlexec.Value, len(rows))
	for i, r := range rows {
		out[i] = append([]sqlexec.Value(nil), r...)
		for k := range out[i] {
			if v := &out[i][k]; v.Kind == sqlexec.KindText && !utf8.ValidString(v.S) {
				v.S = strings.ToValidUTF8(v.S, "")
			}
		}
	}
	return out
}
