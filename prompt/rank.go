package prompt

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Pruning ranks tables by lexical overlap with the question and evidence:
// BIRD's evidence names columns outright ("superpowers refers to
// power_name") and questions quote values ("3-D Man"), so word overlap finds
// most needed tables without a model. A question word found in a table's
// name weighs 3, in a column name 2, in an example value or a description 1,
// each scaled by the word's rarity among the tables (see rankTables). A
// stored value the question quotes (value linking) weighs as the table's
// name, scaled by how many tables store it.

const (
	weightTable  = 3
	weightColumn = 2
	weightValue  = 1
	// maxLinked bounds the quoted values that ranking counts.
	maxLinked = 16
	// weightKeep ranks the tables a caller must keep above any overlap.
	weightKeep = 1 << 30
)

// stopwords are frequent words that would make every table match.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to for from by with and or not no is are was were be been
		it its this that these those there their they them he she his her we our you your what which who whom
		whose when where why how many much list give show name names find all each every per than then
		as do does did have has had please among between refer refers referred mean means id ids number
		table column value values example examples`) {
		stopwords[w] = true
	}
}

// terms splits s into lower-case words: on anything but letters and digits,
// at camelCase boundaries, with a plural "s" dropped; stopwords and
// one-character words are left out.
func terms(s string, into map[string]bool) {
	var word []rune
	flush := func() {
		if len(word) == 0 {
			return
		}
		addTerm(string(word), into)
		word = word[:0]
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// eyeColour -> eye, colour; CDSCode stays one word.
			if unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]) {
				flush()
			}
			word = append(word, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
}

func addTerm(w string, into map[string]bool) {
	if len(w) < 2 || stopwords[w] {
		return
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		w = w[:len(w)-1]
	}
	into[w] = true
}

// indexTerms fills the term sets ranking reads; called once per table when
// its schema is read.
func (t *Table) indexTerms() {
	t.nameTerms, t.colTerms, t.valueTerms = map[string]bool{}, map[string]bool{}, map[string]bool{}
	terms(t.Name, t.nameTerms)
	for _, c := range t.Columns {
		terms(c.Name, t.colTerms)
		for _, e := range c.Examples {
			terms(e, t.valueTerms)
		}
		terms(c.Description, t.valueTerms)
	}
}

// level is where a question word matches a table: its name, a column name,
// or a value or description (levelNone: nowhere).
func (t *Table) level(w string) int {
	switch {
	case t.nameTerms[w]:
		return 0
	case t.colTerms[w]:
		return 1
	case t.valueTerms[w]:
		return 2
	}
	return levelNone
}

const levelNone = 3

var levelWeight = [3]float64{weightTable, weightColumn, weightValue}

// rankTables returns table indexes by descending score, ties in schema
// order, and the scores. A match's weight is scaled by the word's rarity at
// that level among the schema's tables, ln(1 + tables/tables matching it
// there), so that "superhero", found in the description of every table of
// BIRD's superhero database, counts for little, while a table's own name
// keeps its weight even when foreign-key columns elsewhere repeat it
// (link_to_event). Scores are integers (x100) so that ranking never depends
// on floating-point details. Tables named in keep score above everything.
func rankTables(s *Schema, question string, keep []string) ([]int, []int) {
	q := map[string]bool{}
	terms(question, q)
	n := float64(len(s.Tables))
	levels := make([]map[string]int, len(s.Tables))
	df := map[string]*[3]int{}
	for i, t := range s.Tables {
		levels[i] = map[string]int{}
		for w := range q {
			if l := t.level(w); l != levelNone {
				levels[i][w] = l
				if df[w] == nil {
					df[w] = &[3]int{}
				}
				df[w][l]++
			}
		}
	}
	// A quoted stored value (Schema.MatchValues) names its table as
	// surely as the table's own name does.
	linked := s.MatchValues(question, maxLinked)
	linkedDF := map[string]int{}
	for _, m := range linked {
		linkedDF[m.Value]++
	}
	scores := make([]int, len(s.Tables))
	for i, t := range s.Tables {
		for w, l := range levels[i] {
			scores[i] += int(math.Round(100 * levelWeight[l] * math.Log(1+n/float64(df[w][l]))))
		}
		for _, m := range linked {
			if m.Table == t.Name {
				scores[i] += int(math.Round(100 * weightTable * math.Log(1+n/float64(linkedDF[m.Value]))))
			}
		}
		for _, k := range keep {
			if strings.EqualFold(k, t.Name) {
				scores[i] += weightKeep
			}
		}
	}
	order := make([]int, len(s.Tables))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	return order, scores
}

// neighbours returns, for each table, the tables it shares a foreign key
// with (either direction), in schema order.
func neighbours(s *Schema) [][]int {
	idx := map[string]int{}
	for i, t := range s.Tables {
		idx[strings.ToLower(t.Name)] = i
	}
	sets := make([]map[int]bool, len(s.Tables))
	for i := range sets {
		sets[i] = map[int]bool{}
	}
	for i, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			j, ok := idx[strings.ToLower(fk.RefTable)]
			if !ok || j == i {
				continue
			}
			sets[i][j] = true
			sets[j][i] = true
		}
	}
	out := make([][]int, len(s.Tables))
	for i, set := range sets {
		for j := range set {
			out[i] = append(out[i], j)
		}
		sort.Ints(out[i])
	}
	return out
}
