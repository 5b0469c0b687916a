package train

import (
	"errors"
	"math/rand/v2"
	"strings"

	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Renaming augmentation. The bundled benchmark's dev databases rename
// every table and column (customer -> client, first_name -> given_name),
// and BIRD's dev databases are unseen too, so a policy that recalls train's
// names instead of reading its prompt scores nothing. Training on copies of
// each schema with random names (the same names in the prompt, the gold SQL
// and the evidence's code) makes copying from the prompt the only way to
// lower the loss. Names are drawn from words of the training corpus and
// made-up syllables, never from the evaluation data.

// renamer draws new identifiers.
type renamer struct {
	words []string
	mode  renameMode
}

// renameMode is what a renamer renames.
type renameMode int

const (
	// renameByName draws each schema name apart (renameSchema).
	renameByName renameMode = iota
	// renameByText renames the words of names, questions, evidence and
	// descriptions alike (renameText; the options' RenameText).
	renameByText
	// renameByFamily renames the words of the schema's names, one drawn
	// word per word everywhere in the schema, and leaves the question as
	// it is (renameFamilies; the options' RenameFamilies).
	renameByFamily
)

// renameModeFor is the mode of the options' RenameText and RenameFamilies,
// or an error when both are set: text renames the question's words too,
// families keeps them.
func renameModeFor(text, families bool) (renameMode, error) {
	switch {
	case text && families:
		return renameByName, errors.New("train: rename text or rename families, not both (text renames the question's words too)")
	case text:
		return renameByText, nil
	case families:
		return renameByFamily, nil
	}
	return renameByName, nil
}

var syllables = []string{"ba", "ko", "ri", "tu", "mel", "sor", "an", "vi", "da", "pen", "lo", "gra", "fen", "zu", "qua", "mo", "ter", "ix", "ul", "cas"}

// sqlWords are names a renamed identifier must not take: SQL keywords and
// functions the golds use.
var sqlWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`select from where and or not in is null like between group by order having limit offset
		as on join inner left right outer cross natural using union intersect except all distinct case when then else end
		cast real integer text date datetime count sum avg min max desc asc exists values insert update delete into
		create table index primary key foreign references set default check unique collate glob escape if iif
		strftime julianday substr length round abs upper lower trim replace instr coalesce ifnull nullif total group_concat
		with recursive over partition row rows window filter true false current_date current_time current_timestamp`) {
		sqlWords[w] = true
	}
}

// newRenamer collects the pool of words: lowercase alphabetic words of 3
// to 10 letters from texts.
func newRenamer(texts []string) *renamer {
	seen := map[string]bool{}
	var words []string
	for _, t := range texts {
		for _, f := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if len(f) >= 3 && len(f) <= 10 && !seen[f] && !sqlWords[f] {
				seen[f] = true
				words = append(words, f)
			}
		}
	}
	return &renamer{words: words}
}

func (r *renamer) word(rng *rand.Rand) string {
	if len(r.words) == 0 || rng.IntN(10) < 3 {
		var b strings.Builder
		for range 2 + rng.IntN(2) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		return b.String()
	}
	return r.words[rng.IntN(len(r.words))]
}

// newName renames old part by part ("customer_id" -> "patron_id"): each
// "_"-separated part is replaced by a drawn word with probability 0.7.
func (r *renamer) newName(old string, rng *rand.Rand) string {
	parts := strings.Split(old, "_")
	changed := false
	for i := range parts {
		if parts[i] == "" {
			continue
		}
		if rng.Float64() < 0.7 {
			parts[i] = r.word(rng)
			changed = true
		}
	}
	if !changed {
		parts = append([]string{r.word(rng)}, parts...)
	}
	return strings.Join(parts, "_")
}

// rename renames s's names (renameSchema, and the evidence's code with
// them) or, for a renamer of words, the words of its names wherever they
// occur (renameText); it returns the schema, the map of names for
// renameSQL, and the question and evidence as the prompt shows them.
func (r *renamer) rename(s *prompt.Schema, question, evidence string, p float64, rng *rand.Rand) (*prompt.Schema, map[string]string, string, string) {
	var m map[string]string
	switch r.mode {
	case renameByText:
		return r.renameText(s, question, evidence, p, rng)
	case renameByFamily:
		s, m = r.renameFamilies(s, p, rng)
	default:
		s, m = r.renameSchema(s, p, rng)
	}
	return s, m, question, renameEvidence(evidence, m)
}

// renameSchema returns a copy of s with tables and columns renamed (each
// identifier with probability p) and the mapping from lowercased old names
// to new ones. One name is one identifier everywhere: a key column shared
// by two tables keeps one new name, as the benchmark's dev schemas do.
func (r *renamer) renameSchema(s *prompt.Schema, p float64, rng *rand.Rand) (*prompt.Schema, map[string]string) {
	names := schemaNames(s)
	m := map[string]string{}
	used := map[string]bool{}
	for _, n := range names {
		used[strings.ToLower(n)] = true
	}
	for _, n := range names {
		if rng.Float64() >= p || !plainIdent(n) {
			continue
		}
		for try := 0; try < 20; try++ {
			nn := r.newName(n, rng)
			k := strings.ToLower(nn)
			if !used[k] && !sqlWords[k] {
				used[k] = true
				m[strings.ToLower(n)] = nn
				break
			}
		}
	}
	return applyNames(s, m, nil), m
}

// schemaNames returns the distinct names of s's tables and columns (without
// regard to case), in schema order.
func schemaNames(s *prompt.Schema) []string {
	var names []string
	seen := map[string]bool{}
	for _, t := range s.Tables {
		for _, n := range append([]string{t.Name}, columnNames(t)...) {
			if k := strings.ToLower(n); !seen[k] {
				seen[k] = true
				names = append(names, n)
			}
		}
	}
	return names
}

func columnNames(t *prompt.Table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// applyNames returns a copy of s with its names replaced by m (lowercased
// keys) and, when words is set, the words of its column descriptions too
// (mapWords). Example values are values and stay as they are.
func applyNames(s *prompt.Schema, m, words map[string]string) *prompt.Schema {
	get := func(n string) string {
		if v, ok := m[strings.ToLower(n)]; ok {
			return v
		}
		return n
	}
	out := &prompt.Schema{DBID: s.DBID}
	for _, t := range s.Tables {
		nt := &prompt.Table{Name: get(t.Name)}
		for _, c := range t.Columns {
			c.Name = get(c.Name)
			if words != nil {
				c.Description = mapWords(c.Description, words)
			}
			nt.Columns = append(nt.Columns, c)
		}
		for _, k := range t.PrimaryKey {
			nt.PrimaryKey = append(nt.PrimaryKey, get(k))
		}
		for _, fk := range t.ForeignKeys {
			nf := prompt.ForeignKey{RefTable: get(fk.RefTable)}
			for _, c := range fk.Columns {
				nf.Columns = append(nf.Columns, get(c))
			}
			for _, c := range fk.RefColumns {
				nf.RefColumns = append(nf.RefColumns, get(c))
			}
			nt.ForeignKeys = append(nt.ForeignKeys, nf)
		}
		out.Tables = append(out.Tables, nt)
	}
	return out
}

func plainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// renameSQL replaces identifiers of sql found in m (lowercased keys):
// bare words that are not function calls, and quoted identifiers. String
// literals are left alone. It works on sqlparse's tokens, which give back
// the text exactly, so everything but the renamed names is kept as written.
func renameSQL(sql string, m map[string]string) string {
	if len(m) == 0 {
		return sql
	}
	toks := sqlparse.Tokenize(sql)
	var b strings.Builder
	for i, t := range toks {
		switch t.Kind {
		case sqlparse.KindIdentifier, sqlparse.KindKeyword:
			if v, ok := m[strings.ToLower(t.Text)]; ok && !callsFunction(toks[i+1:]) {
				b.WriteString(v)
				continue
			}
		case sqlparse.KindQuotedIdentifier:
			if len(t.Text) >= 2 {
				if v, ok := m[strings.ToLower(t.Text[1:len(t.Text)-1])]; ok {
					b.WriteString(t.Text[:1] + v + t.Text[len(t.Text)-1:])
					continue
				}
			}
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// callsFunction reports whether the tokens after a word start with "(".
func callsFunction(rest []sqlparse.Token) bool {
	for _, t := range rest {
		if !t.IsTrivia() {
			return t.Text == "("
		}
	}
	return false
}

// renameEvidence renames identifiers in the code parts of BIRD-style
// evidence: in each ";"-separated clause, what follows "refers to", or
// else what follows the first "=" of a clause that has one. The words
// before (the question's wording) are kept.
func renameEvidence(ev string, m map[string]string) string {
	if len(m) == 0 || ev == "" {
		return ev
	}
	clauses := strings.Split(ev, ";")
	for i, cl := range clauses {
		if k := strings.Index(cl, "refers to"); k >= 0 {
			k += len("refers to")
			clauses[i] = cl[:k] + renameSQL(cl[k:], m)
		} else if k := strings.IndexByte(cl, '='); k >= 0 {
			clauses[i] = cl[:k] + renameSQL(cl[k:], m)
		}
	}
	return strings.Join(clauses, ";")
}

// Renaming words (SFTOptions.RenameText). Renaming names alone teaches
// copying, but it also cuts the link a question's words have to the
// schema: "pole inventories whose height ft exceeds 68" names pole_invn
// and ht_ft only through their words, and with the names drawn at random
// the question points nowhere, so the model learns to ignore it. On
// benchmarks whose dev schemas use the question's own words (BIRD, bench
// v2's held-out domains), that link is the skill to learn. renameText
// renames words instead: each word of the schema's names ("pole",
// "height") becomes one drawn word everywhere it occurs, in the names,
// the column descriptions, the question and the evidence (plural forms
// too), so the question still names its tables and columns, in words the
// model has to copy.

// keptWords are never renamed: words that say what to compute rather than
// what to read, whose meaning the SQL depends on.
var keptWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`total number count sum average avg mean max min maximum minimum highest lowest largest smallest
		most least top first last percentage percent pct ratio difference per each all any distinct unique`) {
		keptWords[w] = true
	}
}

// renameText returns a copy of s whose names' words are renamed (each
// distinct word of three or more letters with probability p), the mapping
// of its names (for renameSQL), and question and evidence with the same
// words renamed. Words that occur in the columns' example values are
// values, not names, and are kept, as are keptWords and SQL words. The
// draws depend on s alone, so that questions on one database share them.
func (r *renamer) renameText(s *prompt.Schema, question, evidence string, p float64, rng *rand.Rand) (*prompt.Schema, map[string]string, string, string) {
	m, words := r.renameWords(s, p, rng)
	return applyNames(s, m, words), m, mapWords(question, words), mapWords(evidence, words)
}

// renameFamilies returns a copy of s whose names are renamed word by word
// as renameText renames them, so that names sharing a word keep sharing
// one (order_id, order_date and order_item become zub_id, zub_date and
// zub_item, or zub_kelp where item is drawn too), and the mapping of its
// names; a plural is its own word (orders). Renaming name by
// name (renameSchema) breaks such families: order_id and order_date get
// unrelated words. Real schemas, and the bundled benchmark's dev schemas
// (purchase, purchase_line, purchase_date), name an entity's table and
// columns with one word; whether a policy told such families apart was
// never trained. The question stays as it is, as with renameSchema.
func (r *renamer) renameFamilies(s *prompt.Schema, p float64, rng *rand.Rand) (*prompt.Schema, map[string]string) {
	m, _ := r.renameWords(s, p, rng)
	return applyNames(s, m, nil), m
}

// renameWords draws renameText's word map (each distinct word of three or
// more letters of s's names with probability p) and the names it makes.
func (r *renamer) renameWords(s *prompt.Schema, p float64, rng *rand.Rand) (map[string]string, map[string]string) {
	names := schemaNames(s)
	known := map[string]bool{}
	var parts []string
	for _, n := range names {
		for _, w := range strings.Split(strings.ToLower(n), "_") {
			if len(w) >= 3 && isLetters(w) && !known[w] {
				known[w] = true
				parts = append(parts, w)
			}
		}
	}
	values := map[string]bool{}
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			for _, v := range c.Examples {
				for _, w := range letterRuns(strings.ToLower(v)) {
					values[w] = true
				}
			}
		}
	}
	words := map[string]string{}
	for _, w := range parts {
		if rng.Float64() >= p || values[w] || keptWords[w] || sqlWords[w] {
			continue
		}
		for try := 0; try < 20; try++ {
			nw := strings.ToLower(r.word(rng))
			if !known[nw] && !values[nw] && !sqlWords[nw] && !keptWords[nw] {
				known[nw] = true
				words[w] = nw
				break
			}
		}
	}
	m := map[string]string{}
	taken := map[string]bool{}
	for _, n := range names {
		taken[strings.ToLower(n)] = true
	}
	for _, n := range names {
		k := strings.ToLower(n)
		if !plainIdent(n) {
			continue
		}
		ps := strings.Split(n, "_")
		changed := false
		for i, w := range ps {
			if nw, ok := words[strings.ToLower(w)]; ok {
				ps[i], changed = nw, true
			}
		}
		nn := strings.Join(ps, "_")
		if !changed || taken[strings.ToLower(nn)] {
			continue
		}
		taken[strings.ToLower(nn)] = true
		m[k] = nn
	}
	return m, words
}

// mapWords replaces the words of text (runs of letters; "_" separates
// words) found in words, lowercased, or whose singular is (-s, -es, -ies),
// keeping the plural ending and the capitalisation: with pole -> zinc,
// "Poles" becomes "Zincs" and pole_invn becomes zinc_invn.
func mapWords(text string, words map[string]string) string {
	if len(words) == 0 || text == "" {
		return text
	}
	var b strings.Builder
	i := 0
	for i < len(text) {
		if !isLetter(text[i]) {
			b.WriteByte(text[i])
			i++
			continue
		}
		j := i
		for j < len(text) && isLetter(text[j]) {
			j++
		}
		b.WriteString(mapWord(text[i:j], words))
		i = j
	}
	return b.String()
}

func mapWord(w string, words map[string]string) string {
	lw := strings.ToLower(w)
	nw, ok := words[lw]
	switch {
	case ok:
	case strings.HasSuffix(lw, "ies") && words[lw[:len(lw)-3]+"y"] != "":
		nw = words[lw[:len(lw)-3]+"y"] + "s"
	case strings.HasSuffix(lw, "es") && words[lw[:len(lw)-2]] != "":
		nw = words[lw[:len(lw)-2]] + "es"
	case strings.HasSuffix(lw, "s") && words[lw[:len(lw)-1]] != "":
		nw = words[lw[:len(lw)-1]] + "s"
	default:
		return w
	}
	switch {
	case len(w) > 1 && w == strings.ToUpper(w):
		return strings.ToUpper(nw)
	case w[0] >= 'A' && w[0] <= 'Z':
		return strings.ToUpper(nw[:1]) + nw[1:]
	}
	return nw
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// letterRuns returns the runs of ASCII letters of s.
func letterRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r > 127 || !isLetter(byte(r)) })
}
