package prompt

import (
	"slices"
	"strings"
)

// choose is the one table pruner behind Builder.Build and Fit. It keeps the
// tables that fit, in this priority: tables that overlap the question (and
// those in keep), best first, each followed by the tables that join it to
// one kept before (a bridge such as hero_power between superhero and
// superpower); then tables sharing a foreign key with a kept one, so that
// join paths stay whole; then the rest, best first. A table that does not
// fit is skipped and smaller ones are tried.
//
// cost(i) is what table i adds to the prompt (separator included) and avail
// what the tables may add together; total(idx) is the exact cost of the
// whole prompt showing the tables idx (schema order), which must be at most
// budget. Token counts of pieces do not add up exactly to the count of
// their concatenation, so the last kept tables are dropped until the whole
// fits. The result is in schema order; over is set when not even the most
// relevant table alone fits (idx then holds it alone). The last call of
// total is for the returned idx.
func choose(order, scores []int, adj [][]int, cost func(int) int, avail int, total func([]int) int, budget int) (idx []int, tokens int, over bool) {
	kept := make([]bool, len(order))
	var added []int // in the order kept, so the last one goes first if needed
	used := 0
	try := func(i int) bool {
		if kept[i] {
			return false
		}
		c := cost(i)
		if used+c > avail {
			return false
		}
		kept[i] = true
		used += c
		added = append(added, i)
		return true
	}
	byScore := func(idx []int) []int {
		idx = slices.Clone(idx)
		slices.SortStableFunc(idx, func(x, y int) int { return scores[y] - scores[x] })
		return idx
	}
	for _, i := range order {
		if scores[i] <= 0 || !try(i) {
			continue
		}
		// A table joining this one to one kept before comes right after
		// it: without the bridge neither can be used.
		for _, j := range byScore(adj[i]) {
			if kept[j] {
				continue
			}
			for _, k := range adj[j] {
				if k != i && kept[k] {
					try(j)
					break
				}
			}
		}
	}
	for _, i := range slices.Clone(added) {
		for _, j := range byScore(adj[i]) {
			try(j)
		}
	}
	for _, i := range order {
		try(i)
	}
	if len(added) == 0 && len(order) > 0 {
		kept[order[0]] = true
		added = append(added, order[0])
		over = true
	}
	for {
		idx = idx[:0]
		for i := range kept {
			if kept[i] {
				idx = append(idx, i)
			}
		}
		tokens = total(idx)
		if tokens <= budget || len(added) <= 1 {
			break
		}
		last := added[len(added)-1]
		added = added[:len(added)-1]
		kept[last] = false
	}
	return idx, tokens, over || tokens > budget
}

// Fitted is a prompt of another format than the Builder's, fitted to a
// token budget by Fit.
type Fitted struct {
	// Tables are the tables shown, in schema order.
	Tables []*Table
	// Pruned names the tables left out, in schema order.
	Pruned []string
	// Text is the prompt: render(Tables).
	Text string
	// Tokens is Text's cost under the counter.
	Tokens int
	// OverBudget is set when even the most relevant table alone does not
	// fit; Tables then holds it alone and Text costs more than the budget.
	OverBudget bool
}

// Fit prunes the tables of s, least relevant to in's question and evidence
// first (in.Keep first kept), until the prompt that render writes from the
// tables left costs at most budget tokens under counter. It is the
// Builder's pruning (same ranking, same join-path rules) for callers that
// write prompts in their own format, such as the native policy's compact
// one-line-per-table prompt, so that every format is pruned alike. render
// receives tables in schema order and must write a prompt whose cost grows
// with the tables given (nil: the prompt without a schema). budget <= 0
// means no limit.
func Fit(s *Schema, in Input, budget int, counter TokenCounter, render func([]*Table) string) Fitted {
	if counter == nil {
		counter = Approx{}
	}
	text := render(s.Tables)
	f := Fitted{Tables: s.Tables, Text: text, Tokens: counter.Count(text)}
	if budget <= 0 || f.Tokens <= budget {
		return f
	}
	order, scores := rankTables(s, in.Question+" "+in.Evidence, in.Keep)
	fixed := counter.Count(render(nil))
	one := make([]*Table, 1)
	cost := func(i int) int {
		one[0] = s.Tables[i]
		return max(1, counter.Count(render(one))-fixed)
	}
	pick := func(idx []int) []*Table {
		ts := make([]*Table, len(idx))
		for k, i := range idx {
			ts[k] = s.Tables[i]
		}
		return ts
	}
	total := func(idx []int) int {
		f.Text = render(pick(idx))
		return counter.Count(f.Text)
	}
	idx, tokens, over := choose(order, scores, neighbours(s), cost, budget-fixed, total, budget)
	f.Tables, f.Tokens, f.OverBudget = pick(idx), tokens, over
	kept := make([]bool, len(s.Tables))
	for _, i := range idx {
		kept[i] = true
	}
	for i, t := range s.Tables {
		if !kept[i] {
			f.Pruned = append(f.Pruned, t.Name)
		}
	}
	return f
}

// Named returns the tables of s whose name or one of whose column names
// in's question or evidence says, or that in.Keep lists, in schema order:
// the tables a pruned prompt should still show, which tells a caller
// whether pruning had to give one of them up. A word found only in example
// values or descriptions does not count: BIRD's descriptions repeat common
// words across most tables.
func Named(s *Schema, in Input) []string {
	q := map[string]bool{}
	terms(in.Question+" "+in.Evidence, q)
	var out []string
	for _, t := range s.Tables {
		named := slices.ContainsFunc(in.Keep, func(k string) bool { return strings.EqualFold(k, t.Name) })
		for w := range q {
			if named {
				break
			}
			named = t.level(w) <= 1
		}
		if named {
			out = append(out, t.Name)
		}
	}
	return out
}

// Bare returns a copy of s without example values and descriptions (the
// column comments), the lighter schema a prompt falls back to when even the
// tables a question names do not fit with them. Ranking still reads the
// original's values: the copy shares their indexed terms.
func (s *Schema) Bare() *Schema {
	out := &Schema{DBID: s.DBID, Tables: make([]*Table, len(s.Tables))}
	for i, t := range s.Tables {
		c := *t
		c.Columns = slices.Clone(t.Columns)
		for k := range c.Columns {
			c.Columns[k].Examples = nil
			c.Columns[k].Description = ""
		}
		out.Tables[i] = &c
	}
	return out
}
