// Package prompt turns a Text2SQL question into the text a model reads: the
// database's schema (CREATE TABLE statements with types, keys, example values
// and BIRD's column descriptions), the question and its evidence, and an
// instruction naming the SQL dialect. Training, evaluation and serving all
// build prompts here, so a model is trained on exactly what it is asked at
// inference.
//
// A prompt comes in two forms: chat (a system and a user message; the
// assistant's answer is the SQL) and plain (one string ending where the SQL
// starts). The schema is an ordered list of table blocks so that training
// augmentation can permute tables, and a token budget prunes whole tables,
// least relevant first, when a schema does not fit. Output is deterministic:
// the same database file, question and options give the same bytes.
package prompt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Options configure a Builder.
type Options struct {
	// Dialect is the SQL dialect the prompt asks for; default SQLite.
	Dialect Dialect
	// Budget is the most tokens the prompt may cost, counted on the plain
	// form (which holds the chat form's system and user text); 0 means no
	// limit. Chat-template tokens come on top. Tables are pruned to fit.
	Budget int
	// Counter counts tokens for the budget; default Approx.
	Counter TokenCounter
}

// Builder writes prompts. It is safe for concurrent use and caches each
// database's rendered table blocks, which thousands of prompts share.
type Builder struct {
	cat  *Catalog
	opts Options

	mu    sync.Mutex
	cache map[string]*rendered
}

// rendered is a schema's tables written once in the Builder's dialect.
type rendered struct {
	schema *Schema
	blocks []string
	tokens []int // per block, -1 until counted
	adj    [][]int
	bare   *rendered // the same tables without comments, built on first use
}

// NewBuilder returns a Builder reading schemas from cat.
func NewBuilder(cat *Catalog, opts Options) (*Builder, error) {
	if opts.Dialect == "" {
		opts.Dialect = SQLite
	}
	if !opts.Dialect.valid() {
		return nil, fmt.Errorf("prompt: unknown dialect %q", opts.Dialect)
	}
	if opts.Counter == nil {
		opts.Counter = Approx{}
	}
	if opts.Budget < 0 {
		return nil, errors.New("prompt: negative token budget")
	}
	if cat == nil {
		return nil, errors.New("prompt: no catalog")
	}
	return &Builder{cat: cat, opts: opts, cache: map[string]*rendered{}}, nil
}

// Input is one question to write a prompt for.
type Input struct {
	DBID     string
	Question string
	Evidence string
	// Keep names tables that pruning keeps before any other (if they fit):
	// for training data, the tables the gold SQL reads, so that a pruned
	// prompt never teaches the model to query a table it was not shown.
	Keep []string
	// Budget, when > 0, replaces Options.Budget for this prompt: a caller
	// fitting prompts to a model's context left over by each completion.
	Budget int
	// Bare writes the tables without their column comments (descriptions
	// and example values), the fallback when the tables a question names
	// do not fit with them.
	Bare bool
}

// Block is one table of a prompt's schema.
type Block struct {
	Table string
	Text  string

	table *Table
}

// Message is one chat message, in the role/content shape every trainer and
// OpenAI-compatible server reads.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Prompt is a written prompt.
type Prompt struct {
	DBID    string
	Dialect Dialect
	// Blocks is the schema shown, one block per table, in prompt order.
	Blocks []Block
	// Pruned names the tables left out to fit the budget, in schema order.
	Pruned []string
	// Tokens is the plain form's cost under the Builder's counter.
	Tokens int
	// OverBudget is set when even one table does not fit; the prompt then
	// holds the most relevant table alone.
	OverBudget bool

	question, evidence string
}

// System is the system message: the task and the dialect (Instruction).
func (p *Prompt) System() string { return Instruction(p.Dialect, "") }

// Instruction is the one instruction that asks a chat model for SQL: the
// task, the dialect, and how the schema is laid out (layout, when the
// schema is not CREATE TABLE statements; policy's compact format names its
// own). Every prompt that asks for SQL says it in these words.
func Instruction(d Dialect, layout string) string {
	name := d.Name()
	schema := "a database schema"
	if layout != "" {
		schema += " (" + layout + ")"
	}
	return "You are an expert " + name + " developer. Given " + schema + ", a question and evidence " +
		"(hints that tie the question's words to the schema), write one " + name +
		" query that answers the question. Reply with the SQL query only."
}

// User is the user message: schema, question, evidence.
func (p *Prompt) User() string {
	var b strings.Builder
	b.WriteString("Database schema (")
	b.WriteString(p.Dialect.Name())
	b.WriteString("):\n\n")
	for i, bl := range p.Blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(bl.Text)
	}
	b.WriteString("\n\nQuestion: ")
	b.WriteString(oneLine(p.question))
	if e := oneLine(p.evidence); e != "" {
		b.WriteString("\nEvidence: ")
		b.WriteString(e)
	}
	return b.String()
}

// Messages is the chat form: system and user messages, ready for a chat
// template with the generation prompt added.
func (p *Prompt) Messages() []Message {
	return []Message{{Role: "system", Content: p.System()}, {Role: "user", Content: p.User()}}
}

// Conversation is the chat form with sql as the assistant's answer: an SFT
// example.
func (p *Prompt) Conversation(sql string) []Message {
	return append(p.Messages(), Message{Role: "assistant", Content: sql})
}

// Plain is the one-string form for completion-style training and base
// models: the system text, the user text and a cue; the SQL follows it.
func (p *Prompt) Plain() string {
	return p.System() + "\n\n" + p.User() + "\n\nSQL:\n"
}

// Tables returns the names of the tables shown, in prompt order.
func (p *Prompt) Tables() []string {
	out := make([]string, len(p.Blocks))
	for i, b := range p.Blocks {
		out[i] = b.Table
	}
	return out
}

// Build writes the prompt for in, pruning tables if the budget requires.
func (b *Builder) Build(ctx context.Context, in Input) (*Prompt, error) {
	r, err := b.rendered(ctx, in.DBID)
	if err != nil {
		return nil, err
	}
	if in.Bare {
		r = b.bare(r)
	}
	p := &Prompt{DBID: in.DBID, Dialect: b.opts.Dialect, question: in.Question, evidence: in.Evidence}
	all := make([]int, len(r.blocks))
	for i := range all {
		all[i] = i
	}
	b.setBlocks(p, r, all)
	budget := b.opts.Budget
	if in.Budget > 0 {
		budget = in.Budget
	}
	if budget == 0 || p.Tokens <= budget {
		return p, nil
	}
	b.prune(p, r, in, budget)
	return p, nil
}

func (b *Builder) setBlocks(p *Prompt, r *rendered, idx []int) {
	p.Blocks = p.Blocks[:0]
	for _, i := range idx {
		t := r.schema.Tables[i]
		p.Blocks = append(p.Blocks, Block{Table: t.Name, Text: r.blocks[i], table: t})
	}
	p.Tokens = b.count(p)
}

// count is the cost of the plain form, which holds the chat form's text
// (system and user) plus a separator and the cue, so one count bounds both.
func (b *Builder) count(p *Prompt) int {
	return b.opts.Counter.Count(p.Plain())
}

// prune keeps the tables that fit budget (choose says in which priority),
// shown in schema order.
func (b *Builder) prune(p *Prompt, r *rendered, in Input, budget int) {
	order, scores := rankTables(r.schema, in.Question+" "+in.Evidence, in.Keep)
	b.setBlocks(p, r, nil)
	sep := b.opts.Counter.Count("\n\n")
	cost := func(i int) int { return b.blockTokens(r, i) + sep }
	total := func(idx []int) int {
		b.setBlocks(p, r, idx)
		return p.Tokens
	}
	idx, _, over := choose(order, scores, r.adj, cost, budget-p.Tokens, total, budget)
	p.OverBudget = over
	kept := make([]bool, len(r.blocks))
	for _, i := range idx {
		kept[i] = true
	}
	p.Pruned = nil
	for i, t := range r.schema.Tables {
		if !kept[i] {
			p.Pruned = append(p.Pruned, t.Name)
		}
	}
}

func (b *Builder) blockTokens(r *rendered, i int) int {
	b.mu.Lock()
	n := r.tokens[i]
	b.mu.Unlock()
	if n >= 0 {
		return n
	}
	n = b.opts.Counter.Count(r.blocks[i])
	b.mu.Lock()
	r.tokens[i] = n
	b.mu.Unlock()
	return n
}

// Reorder returns p with its blocks permuted: block k of the result is block
// tables[k] of p. columns, when not nil, gives for each block of p (indexed
// as in p) the order of its columns (nil: unchanged). This is the OKTO
// recipe's schema-shuffle augmentation; the question, evidence and the set of
// tables stay the same, so the gold SQL still answers the prompt.
func (b *Builder) Reorder(p *Prompt, tables []int, columns [][]int) (*Prompt, error) {
	n := len(p.Blocks)
	if !isPermutation(tables, n) {
		return nil, fmt.Errorf("reorder prompt on %s: table order %v is not a permutation of %d blocks", p.DBID, tables, n)
	}
	if columns != nil && len(columns) != n {
		return nil, fmt.Errorf("reorder prompt on %s: %d column orders for %d blocks", p.DBID, len(columns), n)
	}
	q := *p
	q.Blocks = make([]Block, n)
	for k, i := range tables {
		bl := p.Blocks[i]
		if columns != nil && columns[i] != nil {
			if bl.table == nil || !isPermutation(columns[i], len(bl.table.Columns)) {
				return nil, fmt.Errorf("reorder prompt on %s: column order %v does not fit table %s", p.DBID, columns[i], bl.Table)
			}
			bl.Text = q.Dialect.renderTable(bl.table, columns[i])
		}
		q.Blocks[k] = bl
	}
	q.Tokens = b.count(&q)
	return &q, nil
}

// ColumnCounts returns the number of columns of each block of p, what
// augmentation needs to draw column orders.
func (p *Prompt) ColumnCounts() []int {
	out := make([]int, len(p.Blocks))
	for i, bl := range p.Blocks {
		if bl.table != nil {
			out[i] = len(bl.table.Columns)
		}
	}
	return out
}

func isPermutation(perm []int, n int) bool {
	if len(perm) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range perm {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

func (b *Builder) rendered(ctx context.Context, db string) (*rendered, error) {
	b.mu.Lock()
	r := b.cache[db]
	b.mu.Unlock()
	if r != nil {
		return r, nil
	}
	s, err := b.cat.Schema(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	r = b.render(s, neighbours(s))
	b.mu.Lock()
	if prev := b.cache[db]; prev != nil {
		r = prev
	} else {
		b.cache[db] = r
	}
	b.mu.Unlock()
	return r, nil
}

func (b *Builder) render(s *Schema, adj [][]int) *rendered {
	r := &rendered{schema: s, blocks: make([]string, len(s.Tables)), tokens: make([]int, len(s.Tables)), adj: adj}
	for i, t := range s.Tables {
		r.blocks[i] = b.opts.Dialect.renderTable(t, nil)
		r.tokens[i] = -1
	}
	return r
}

// bare returns r's tables without comments, rendered once per database.
// Its blocks hold the bare tables, so Reorder keeps a bare prompt bare.
func (b *Builder) bare(r *rendered) *rendered {
	b.mu.Lock()
	br := r.bare
	b.mu.Unlock()
	if br != nil {
		return br
	}
	br = b.render(r.schema.Bare(), r.adj)
	b.mu.Lock()
	if r.bare == nil {
		r.bare = br
	}
	br = r.bare
	b.mu.Unlock()
	return br
}
