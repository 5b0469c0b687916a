package benchstats

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// column is one split of one report: a column of the side-by-side tables.
type column struct {
	head  string
	split *Split
}

// WriteMarkdown writes the reports side by side, one column per split, as
// Markdown tables: the first report's splits, then each compared one's.
// Every number is in the JSON report too; the Markdown keeps the tiers for
// the SQL features, where a benchmark's difficulty rule shows.
func WriteMarkdown(w io.Writer, reps []*Report) error {
	bw := bufio.NewWriter(w)
	var cols []column
	for _, r := range reps {
		for _, s := range r.Splits {
			cols = append(cols, column{head: r.Name + " " + s.Name, split: s})
		}
	}
	names := make([]string, len(reps))
	for i, r := range reps {
		names[i] = fmt.Sprintf("%s (%s, %s layout)", r.Name, r.Dir, r.Layout)
	}
	fmt.Fprintf(bw, "# Benchmark statistics\n\n%s\n", strings.Join(names, "; "))

	fmt.Fprintf(bw, "\n## Questions and schemas\n\nSizes are per database (mean, [min-max]) from the tables file.\n\n")
	table(bw, cols, []row{
		{"questions", func(s *Split) string { return fmt.Sprint(s.Questions) }},
		{"databases", func(s *Split) string { return fmt.Sprint(s.Schema.Databases) }},
		{"domains", func(s *Split) string { return fmt.Sprint(s.Schema.Domains) }},
		{"described in tables file", func(s *Split) string { return fmt.Sprint(s.Schema.Described) }},
		{"tables", func(s *Split) string { return mm(s.Schema.Tables, s.Schema.Described) }},
		{"columns", func(s *Split) string { return mm(s.Schema.Columns, s.Schema.Described) }},
		{"foreign keys", func(s *Split) string { return mm(s.Schema.ForeignKeys, s.Schema.Described) }},
		{"tiers", func(s *Split) string { return tierCounts(s) }},
	})

	fmt.Fprintf(bw, "\n## SQL features of the golds, all tiers\n\nShares of the golds that use each; joins count table units beyond the first in every SELECT.\n\n")
	table(bw, cols, featureRows(func(s *Split) *Group { return s.All }))
	for _, tier := range allTiers(cols) {
		var tc []column
		for _, c := range cols {
			if tierGroup(c.split, tier) != nil {
				tc = append(tc, c)
			}
		}
		fmt.Fprintf(bw, "\n### %s\n\n", tier)
		table(bw, tc, featureRows(func(s *Split) *Group { return tierGroup(s, tier) }))
	}

	if tr := tokenRows(cols); tr != nil {
		fmt.Fprintf(bw, "\n## Gold length in tokens\n\nEach gold in the model's tokens, its end token included: what a completion must hold to write it. Over B: the golds a budget of B tokens cuts.\n\n")
		table(bw, cols, tr)
	}

	fmt.Fprintf(bw, "\n## Answers of the golds\n\nEvery gold run read-only; shares are of the golds that ran; - where the golds were not run.\n\n")
	ans := func(get func(a Answers) string) func(*Split) string {
		return func(s *Split) string {
			if a := s.All.Answers; a.Executed > 0 || a.Errors > 0 {
				return get(a)
			}
			return "-" // not run
		}
	}
	table(bw, cols, []row{
		{"ran / failed", ans(func(a Answers) string { return fmt.Sprintf("%d / %d", a.Executed, a.Errors) })},
		{"rows, median", ans(func(a Answers) string { return num(a.RowsMedian) })},
		{"rows, max", ans(func(a Answers) string { return fmt.Sprint(a.RowsMax) })},
		{"empty", ans(func(a Answers) string { return pct(a.Empty) })},
		{"one row", ans(func(a Answers) string { return pct(a.OneRow) })},
		{"columns, mean", ans(func(a Answers) string { return num(a.ColumnsMean) })},
		{"one column", ans(func(a Answers) string { return pct(a.OneColumn) })},
	})

	fmt.Fprintf(bw, "\n## Literals and evidence\n\nA gold string literal is covered when it occurs verbatim (any case) in the question or evidence. Evidence is SQL when it has SQL syntax (a comparison, a function call, LIKE, a qualified or quoted name), a schema name with an underscore, or a schema name right after \"refers to\"; knowledge otherwise.\n\n")
	lit := func(get func(l Literals) string) func(*Split) string {
		return func(s *Split) string { return get(s.All.Literals) }
	}
	table(bw, cols, []row{
		{"string literals", lit(func(l Literals) string { return fmt.Sprint(l.Strings) })},
		{"covered by question or evidence", lit(func(l Literals) string { return frac(l.InText, l.Strings) })},
		{"covered by the question alone", lit(func(l Literals) string { return frac(l.InQuestion, l.Strings) })},
		{"questions with evidence", lit(func(l Literals) string { return pct(l.WithEvidence) })},
		{"evidence is SQL", lit(func(l Literals) string { return pct(l.EvidenceSQL) })},
		{"evidence is knowledge", lit(func(l Literals) string { return pct(l.EvidenceKnowledge) })},
	})

	var oc []column
	for _, c := range cols {
		if c.split.Overlap != nil {
			oc = append(oc, c)
		}
	}
	fmt.Fprintf(bw, "\n## Overlap with train\n\n")
	if len(oc) == 0 {
		fmt.Fprintf(bw, "No benchmark here has a train split.\n")
	} else {
		fmt.Fprintf(bw, "Shares of each split's databases or questions found in its benchmark's train split. Wordings: lower-cased, white space collapsed. Skeletons: names and literals masked. Templates: the question with numbers, quoted strings, the gold's literals and any table or column name of the benchmark masked. Schema shapes: each table's column count and foreign keys, names ignored.\n\n")
		ov := func(get func(o *Overlap) string) func(*Split) string {
			return func(s *Split) string { return get(s.Overlap) }
		}
		table(bw, oc, []row{
			{"db_ids in train", ov(func(o *Overlap) string { return pct(o.Databases) })},
			{"domains in train", ov(func(o *Overlap) string { return pct(o.Domains) })},
			{"schema shapes in train", ov(func(o *Overlap) string { return pct(o.SchemaShapes) })},
			{"wordings in train", func(s *Split) string { return frac(s.Overlap.Wordings, s.Questions) }},
			{"skeletons in train", func(s *Split) string { return frac(s.Overlap.Skeletons, s.Questions) }},
			{"templates in train (questions)", func(s *Split) string { return frac(s.Overlap.Templates, s.Questions) }},
			{"templates in train (distinct)", ov(func(o *Overlap) string { return frac(o.DistinctTemplatesInTrain, o.DistinctTemplates) })},
		})
	}
	var warns []string
	for _, r := range reps {
		warns = append(warns, r.Warnings...)
	}
	if len(warns) > 0 {
		fmt.Fprintf(bw, "\n## Warnings\n\n")
		for _, w := range warns {
			fmt.Fprintf(bw, "- %s\n", strings.ReplaceAll(w, "\n", " "))
		}
	}
	return bw.Flush()
}

type row struct {
	label string
	cell  func(*Split) string
}

func table(w io.Writer, cols []column, rows []row) {
	fmt.Fprint(w, "| |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.head)
	}
	fmt.Fprint(w, "\n|---|")
	for range cols {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |", r.label)
		for _, c := range cols {
			fmt.Fprintf(w, " %s |", r.cell(c.split))
		}
		fmt.Fprintln(w)
	}
}

func featureRows(g func(*Split) *Group) []row {
	f := func(get func(f Features) string) func(*Split) string {
		return func(s *Split) string { return get(g(s).Features) }
	}
	share := func(get func(f Features) float64) func(*Split) string {
		return f(func(x Features) string { return pct(get(x)) })
	}
	return []row{
		{"questions", func(s *Split) string { return fmt.Sprint(g(s).Questions) }},
		{"golds analysed", f(func(x Features) string { return fmt.Sprint(x.Parsed) })},
		{"JOIN", share(func(x Features) float64 { return x.Join })},
		{"joins, mean / max", f(func(x Features) string { return fmt.Sprintf("%s / %d", num(x.JoinsMean), x.JoinsMax) })},
		{"subquery", share(func(x Features) float64 { return x.Subquery })},
		{"subqueries, max", f(func(x Features) string { return fmt.Sprint(x.SubqueriesMax) })},
		{"set operation", share(func(x Features) float64 { return x.SetOp })},
		{"window function", share(func(x Features) float64 { return x.Window })},
		{"CASE or IIF", share(func(x Features) float64 { return x.Case })},
		{"CAST", share(func(x Features) float64 { return x.Cast })},
		{"arithmetic", share(func(x Features) float64 { return x.Arithmetic })},
		{"aggregate", share(func(x Features) float64 { return x.Aggregate })},
		{"GROUP BY", share(func(x Features) float64 { return x.GroupBy })},
		{"HAVING", share(func(x Features) float64 { return x.Having })},
		{"ORDER BY + LIMIT", share(func(x Features) float64 { return x.OrderLimit })},
		{"DISTINCT", share(func(x Features) float64 { return x.Distinct })},
		{"NULL test", share(func(x Features) float64 { return x.NullTest })},
		{"date function", share(func(x Features) float64 { return x.DateFunc })},
		{"LIKE", share(func(x Features) float64 { return x.Like })},
		{"skeletons per question", func(s *Split) string { return num(g(s).SkeletonsPerQuestion) }},
	}
}

// tokenRows are the gold-length rows, the whole split's and each tier's,
// or nil when no column was measured with a tokenizer.
func tokenRows(cols []column) []row {
	i := slices.IndexFunc(cols, func(c column) bool { return c.split.All.GoldTokens != nil })
	if i < 0 {
		return nil
	}
	budgets := cols[i].split.All.GoldTokens.Over
	var rows []row
	for _, tier := range append([]string{"all"}, allTiers(cols)...) {
		group := func(s *Split) *Group {
			if tier == "all" {
				return s.All
			}
			return tierGroup(s, tier)
		}
		rows = append(rows, row{tier + ": median / p90 / max", func(s *Split) string {
			g := group(s)
			if g == nil || g.GoldTokens == nil {
				return "-"
			}
			t := g.GoldTokens
			return fmt.Sprintf("%s / %d / %d", strconv.FormatFloat(t.Median, 'f', -1, 64), t.P90, t.Max)
		}})
		for j, b := range budgets {
			rows = append(rows, row{fmt.Sprintf("%s: over %d", tier, b.Budget), func(s *Split) string {
				g := group(s)
				if g == nil || g.GoldTokens == nil || j >= len(g.GoldTokens.Over) {
					return "-"
				}
				return frac(g.GoldTokens.Over[j].Golds, g.Questions)
			}})
		}
	}
	return rows
}

func tierGroup(s *Split, tier string) *Group {
	for _, g := range s.Tiers {
		if g.Tier == tier {
			return g
		}
	}
	return nil
}

// allTiers lists the tiers of every column, in first-seen order.
func allTiers(cols []column) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cols {
		for _, g := range c.split.Tiers {
			if !seen[g.Tier] {
				seen[g.Tier] = true
				out = append(out, g.Tier)
			}
		}
	}
	return out
}

func tierCounts(s *Split) string {
	parts := make([]string, len(s.Tiers))
	for i, g := range s.Tiers {
		parts[i] = fmt.Sprintf("%s %d", g.Tier, g.Questions)
	}
	return strings.Join(parts, ", ")
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func num(x float64) string { return fmt.Sprintf("%.2f", x) }

func frac(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%s)", n, d, pct(ratio(n, d)))
}

func mm(m MinMax, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%s [%d-%d]", num(m.Mean), m.Min, m.Max)
}
