package policy

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sqlrl/sqlrl/prompt"
)

// Format says how a question becomes the prompt text a policy reads. It is
// saved in the checkpoint, so generation and serving build prompts exactly
// as training did.
type Format struct {
	// Kind is FormatCompact or FormatText.
	Kind string `json:"kind"`
	// Types adds each column's declared type; Descriptions adds BIRD's
	// column descriptions (compact kind only).
	Types        bool `json:"types,omitempty"`
	Descriptions bool `json:"descriptions,omitempty"`
	// DescWords cuts descriptions to this many words (default 6).
	DescWords int `json:"desc_words,omitempty"`
	// DescPhrase shows, for a column whose name is not its readable name
	// ("clnt_inds", described "industry; The industry of the client
	// company"), the readable name alone, and leaves out a description
	// that only restates the column's and the table's names ("The request
	// date of the change order" for request_date): databases with
	// abbreviated names and 60+ columns need the words that explain a
	// name, not a sentence per column.
	DescPhrase bool `json:"desc_phrase,omitempty"`
	// Values adds, after the question and evidence, the stored values they
	// quote and where they are stored (value linking, prompt.MatchValues):
	// "values: superhero.superhero_name = '3-D Man'". Humans name entities
	// by value and leave the column implicit.
	Values bool `json:"values,omitempty"`
}

// MaxLinkedValues is the most quoted values a compact prompt links.
const MaxLinkedValues = 6

// Prompt kinds.
const (
	// FormatCompact is a one-line-per-table schema, the question, the
	// evidence and a cue: about a fifth of the tokens of the CREATE TABLE
	// prompt, which is what a small model trained in minutes can afford.
	FormatCompact = "compact"
	// FormatText means prompts are given as text (a TRL prompt/completion
	// file); questions from a benchmark are written with package prompt's
	// plain form.
	FormatText = "text"
)

// Instruction is prompt.Instruction for a compact prompt (Compact): the
// system message a chat model reads before one.
func (f Format) Instruction(d prompt.Dialect) string {
	return prompt.Instruction(d, "one table a line: its columns, then the table's name")
}

// CompactCue ends a compact prompt; the SQL follows it.
const CompactCue = "\nSQL: "

// Compact renders the compact prompt:
//
//	client: client_id integer key, given_name text, region text
//	purchase: purchase_id integer key, client_id integer -> client, purchase_date date
//	question: How many ...?
//	evidence: silver-tier refers to loyalty_level = 'silver'
//	SQL:
//
// A column that is a single-column primary key is marked "key"; a foreign
// key names the table it references. Tables appear in schema order.
//
// With Descriptions, each column's description comes before its name and
// the table's name after its columns:
//
//	[unique id of the customer] client_id integer key, [the customer's first name] given_name text => client
//
// The model reads left to right, so a name can only take in what precedes
// it: this order lets each name's tokens carry its meaning and each table
// name its columns, which is what the SQL has to look up. Descriptions are
// BIRD's column_description without value notes, articles and possessives,
// cut to DescWords words.
func (f Format) Compact(s *prompt.Schema, question, evidence string) string {
	var b strings.Builder
	for _, t := range s.Tables {
		if !f.Descriptions {
			b.WriteString(t.Name)
			b.WriteString(":")
		}
		refs := map[string]string{}
		for _, fk := range t.ForeignKeys {
			if len(fk.Columns) == 1 {
				refs[strings.ToLower(fk.Columns[0])] = fk.RefTable
			}
		}
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(",")
			}
			if i > 0 || !f.Descriptions {
				b.WriteString(" ")
			}
			if f.Descriptions {
				if d := f.shortDescription(c.Description, c.Name, t.Name); d != "" {
					b.WriteString("[")
					b.WriteString(d)
					b.WriteString("] ")
				}
			}
			b.WriteString(c.Name)
			if f.Types && c.Type != "" {
				b.WriteString(" ")
				b.WriteString(strings.ToLower(c.Type))
			}
			if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) {
				b.WriteString(" key")
			}
			if r, ok := refs[strings.ToLower(c.Name)]; ok {
				b.WriteString(" -> ")
				b.WriteString(r)
			}
		}
		if f.Descriptions {
			b.WriteString(" => ")
			b.WriteString(t.Name)
		}
		b.WriteString("\n")
	}
	b.WriteString("question: ")
	b.WriteString(oneLine(question))
	if e := oneLine(evidence); e != "" {
		b.WriteString("\nevidence: ")
		b.WriteString(e)
	}
	if f.Values {
		writeValues(&b, s, question, evidence)
	}
	b.WriteString(CompactCue)
	return b.String()
}

// writeValues writes the values line of a compact prompt: the stored
// values the question quotes, then those only the evidence quotes, as the
// filters a query would write; nothing when there are none.
func writeValues(b *strings.Builder, s *prompt.Schema, question, evidence string) {
	ms := s.MatchValues(question, MaxLinkedValues)
	type key struct{ t, c, v string }
	seen := map[key]bool{}
	for _, m := range ms {
		seen[key{m.Table, m.Column, m.Value}] = true
	}
	for _, m := range s.MatchValues(evidence, MaxLinkedValues) {
		if len(ms) < MaxLinkedValues && !seen[key{m.Table, m.Column, m.Value}] {
			seen[key{m.Table, m.Column, m.Value}] = true
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return
	}
	b.WriteString("\nvalues: ")
	for i, m := range ms {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.Table)
		b.WriteString(".")
		b.WriteString(m.Column)
		b.WriteString(" = '")
		b.WriteString(strings.ReplaceAll(oneLine(m.Value), "'", "''"))
		b.WriteString("'")
	}
}

// shortDescription keeps the description proper of a catalog description
// ("readable name; description; values: ..."): the longest part before the
// value notes, without articles and possessives, cut to DescWords words
// (default 6).
func (f Format) shortDescription(desc, col, table string) string {
	if k := strings.Index(desc, "values:"); k >= 0 {
		desc = desc[:k]
	}
	best := ""
	var parts []string
	for _, p := range strings.Split(desc, "; ") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
		if len(p) > len(best) {
			best = p
		}
	}
	if f.DescPhrase {
		// The catalog writes "readable name; description" when the name
		// differs from the column's: a short first part with a longer
		// one after it is that name.
		if len(parts) >= 2 && len(strings.Fields(parts[0])) <= 4 && !strings.ContainsAny(parts[0], ".()") && len(parts[1]) > len(parts[0]) {
			best = parts[0]
		} else if restates(best, col, table) {
			return ""
		}
	}
	n := f.DescWords
	if n <= 0 {
		n = 6
	}
	var w []string
	for _, x := range strings.Fields(strings.NewReplacer("[", "(", "]", ")", "'s ", " ", ",", "").Replace(best + " ")) {
		switch strings.ToLower(x) {
		case "the", "a", "an", "of", "that", "is", "in":
			continue
		}
		if w = append(w, x); len(w) == n {
			break
		}
	}
	return strings.Join(w, " ")
}

// restates reports whether a description says nothing but the column's
// and table's names ("The request date of the change order."), word for
// word up to stop words.
func restates(desc, col, table string) bool {
	known := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(col+" "+table), func(r rune) bool { return r == '_' || r == ' ' }) {
		known[w] = true
		known[strings.TrimSuffix(w, "s")] = true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(desc), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		switch w {
		case "the", "a", "an", "of", "this", "that", "is", "in", "for", "to", "its", "s":
			continue
		}
		if !known[w] && !known[strings.TrimSuffix(w, "s")] {
			return false
		}
	}
	return true
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Validate checks the format.
func (f Format) Validate() error {
	if f.Values && f.Kind != FormatCompact {
		return fmt.Errorf("policy: value linking is a compact prompt's (format %q)", f.Kind)
	}
	switch f.Kind {
	case FormatCompact, FormatText:
		return nil
	}
	return fmt.Errorf("policy: unknown prompt format %q (want %s or %s)", f.Kind, FormatCompact, FormatText)
}

// ChatPrompt turns chat messages into the policy's prompt text for the
// OpenAI chat endpoint: the contents of the system and user messages,
// joined by blank lines, followed by the format's cue unless the last
// message already ends with it. A client that sends a compact prompt as its
// user message gets exactly what the model was trained on.
func (f Format) ChatPrompt(msgs []prompt.Message) string {
	var parts []string
	for _, m := range msgs {
		if m.Role == "assistant" {
			continue
		}
		parts = append(parts, m.Content)
	}
	s := strings.TrimRight(strings.Join(parts, "\n\n"), " \n")
	cue := CompactCue
	if f.Kind == FormatText {
		cue = "\n\nSQL:\n"
	}
	if strings.HasSuffix(s, "SQL:") {
		return s + cue[strings.Index(cue, "SQL:")+4:]
	}
	return s + cue
}

// CompactSchema reads the tables and their columns back from a compact
// prompt (its lines before "question: "), so that a server given only the
// prompt can still guide the SQL; ok is false when p is not one.
func CompactSchema(p string) (tables map[string][]string, ok bool) {
	k := strings.Index(p, "question: ")
	if k < 0 || (k > 0 && p[k-1] != '\n') {
		return nil, false
	}
	tables = map[string][]string{}
	for _, line := range strings.Split(strings.TrimRight(p[:k], "\n"), "\n") {
		var table, cols string
		if i := strings.LastIndex(line, " => "); i >= 0 {
			cols, table = line[:i], line[i+4:]
		} else if i := strings.Index(line, ": "); i >= 0 {
			table, cols = line[:i], line[i+2:]
		} else {
			return nil, false
		}
		if table = strings.TrimSpace(table); table == "" || strings.ContainsAny(table, " ,[]") {
			return nil, false
		}
		for _, item := range strings.Split(cols, ", ") {
			item = strings.TrimSpace(item)
			if strings.HasPrefix(item, "[") {
				j := strings.Index(item, "] ")
				if j < 0 {
					return nil, false
				}
				item = item[j+2:]
			}
			f := strings.Fields(item)
			if len(f) == 0 {
				return nil, false
			}
			tables[table] = append(tables[table], f[0])
		}
	}
	return tables, len(tables) > 0
}
