package benchstats

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/dataset"
)

// normWording is a question as compared for word-for-word overlap:
// lower-cased, white space collapsed.
func normWording(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }

var (
	singleQuoted = regexp.MustCompile(`(^|[^\p{L}\p{N}])'[^']*'($|[^\p{L}\p{N}])`)
	doubleQuoted = regexp.MustCompile(`"[^"]*"|“[^”]*”`)
	numberRe     = regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`)
	monthRe      = regexp.MustCompile(`\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b`)
	wordOrNot    = regexp.MustCompile(`[\p{L}\p{N}_]+|[^\p{L}\p{N}_]+`)
)

// Placeholders while masking; they hold no letter or digit, so later steps
// never mistake them for words.
const (
	strMark = "\x00s\x00"
	valMark = "\x00v\x00"
	idMark  = "\x00i\x00"
)

// maxNameWords is the longest name, in words, that templates mask.
const maxNameWords = 4

// templater masks questions into templates. Its names are the table and
// column names of every database of the benchmark, so that a question's
// template does not depend on which database it is asked of: two equal
// wordings always have equal templates.
type templater struct {
	names map[string]bool // lower-cased; "first_name" also as "first name"
}

func newTemplater(schemas ...map[string]*dataset.Schema) *templater {
	t := &templater{names: map[string]bool{}}
	add := func(n string) {
		n = strings.Join(strings.Fields(strings.ToLower(n)), " ")
		if n == "" {
			return
		}
		t.names[n] = true
		if strings.Contains(n, "_") {
			t.names[strings.Join(strings.Fields(strings.ReplaceAll(n, "_", " ")), " ")] = true
		}
	}
	for _, m := range schemas {
		for _, sc := range m {
			for _, n := range sc.TableNames {
				add(n)
			}
			for _, c := range sc.Columns {
				if c.Table >= 0 {
					add(c.Name)
				}
			}
		}
	}
	return t
}

// template is the question with what varies between instances of one
// question template masked: quoted strings (<str>), the gold's string
// literals, the values it filters on (<val>), the benchmark's table and
// column names, also with underscores read as spaces and in the plural
// (<id>), then numbers and month names, parts of dates (<num>). Two questions of one template differ only
// in those.
func (t *templater) template(q string, lits []string) string {
	s := strings.ToLower(q)
	s = singleQuoted.ReplaceAllString(s, "${1}"+strMark+"${2}")
	s = doubleQuoted.ReplaceAllString(s, strMark)
	vals := make([]string, 0, len(lits))
	for _, l := range lits {
		if l = strings.ToLower(strings.Trim(l, "%")); strings.TrimSpace(l) != "" {
			vals = append(vals, l)
		}
	}
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	for _, v := range vals {
		s = replaceWords(s, v, valMark)
	}
	s = t.maskNames(s)
	s = numberRe.ReplaceAllString(s, "<num>")
	s = monthRe.ReplaceAllString(s, "<num>")
	s = strings.NewReplacer(strMark, "<str>", valMark, "<val>", idMark, "<id>").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// replaceWords replaces each occurrence of v in s that is not part of a
// longer word: the literal 'F' must not mask the f of "female".
func replaceWords(s, v, with string) string {
	if v == "" {
		return s
	}
	first, _ := utf8.DecodeRuneInString(v)
	last, _ := utf8.DecodeLastRuneInString(v)
	var b strings.Builder
	done, off := 0, 0
	for {
		j := strings.Index(s[off:], v)
		if j < 0 {
			break
		}
		i := off + j
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(v):])
		if (i > 0 && isWordRune(before) && isWordRune(first)) || (i+len(v) < len(s) && isWordRune(after) && isWordRune(last)) {
			_, n := utf8.DecodeRuneInString(s[i:])
			off = i + n
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(with)
		done, off = i+len(v), i+len(v)
	}
	b.WriteString(s[done:])
	return b.String()
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// maskNames replaces runs of up to maxNameWords words, separated by single
// spaces, that spell a name; the longest run at each word wins.
func (t *templater) maskNames(s string) string {
	toks := wordOrNot.FindAllString(s, -1)
	isWord := func(i int) bool {
		if i >= len(toks) {
			return false
		}
		r, _ := utf8.DecodeRuneInString(toks[i])
		return isWordRune(r)
	}
	var b strings.Builder
	for i := 0; i < len(toks); {
		if !isWord(i) {
			b.WriteString(toks[i])
			i++
			continue
		}
		end := -1
		words, j := []string{}, i
		for len(words) < maxNameWords && isWord(j) {
			words = append(words, toks[j])
			if t.isName(words) {
				end = j
			}
			if j+1 < len(toks) && toks[j+1] == " " {
				j += 2
				continue
			}
			break
		}
		if end < 0 {
			b.WriteString(toks[i])
			i++
			continue
		}
		b.WriteString(idMark)
		i = end + 1
	}
	return b.String()
}

// isName reports whether words spell a name, the last word perhaps in the
// plural ("customers", "categories").
func (t *templater) isName(words []string) bool {
	n := strings.Join(words, " ")
	if t.names[n] {
		return true
	}
	for _, suf := range [][2]string{{"ies", "y"}, {"es", ""}, {"s", ""}} {
		if base, ok := strings.CutSuffix(n, suf[0]); ok && base != "" && t.names[base+suf[1]] {
			return true
		}
	}
	return false
}

// overlap compares split m with train.
func overlap(m, train *measured) *Overlap {
	o := &Overlap{}
	trainDB, trainDomain, trainShape := map[string]bool{}, map[string]bool{}, map[string]bool{}
	trainWording, trainSkel, trainTmpl := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, q := range train.questions {
		trainDB[q.ex.DBID] = true
		trainDomain[domainOf(q.ex.DBID)] = true
		trainWording[q.wording] = true
		trainTmpl[q.template] = true
		if q.shape != nil {
			trainSkel[q.shape.Skeleton] = true
		}
	}
	for id := range trainDB {
		if sh, ok := train.shapes[id]; ok {
			trainShape[sh] = true
		}
	}
	dbs, domains := map[string]bool{}, map[string]bool{}
	tmpls := map[string]bool{}
	for _, q := range m.questions {
		dbs[q.ex.DBID] = true
		domains[domainOf(q.ex.DBID)] = true
		tmpls[q.template] = true
		if trainWording[q.wording] {
			o.Wordings++
		}
		if trainTmpl[q.template] {
			o.Templates++
		}
		if q.shape != nil && trainSkel[q.shape.Skeleton] {
			o.Skeletons++
		}
	}
	var inDB, inShape, inDomain int
	for id := range dbs {
		if trainDB[id] {
			inDB++
		}
		if sh, ok := m.shapes[id]; ok && trainShape[sh] {
			inShape++
		}
	}
	for d := range domains {
		if trainDomain[d] {
			inDomain++
		}
	}
	for t := range tmpls {
		if trainTmpl[t] {
			o.DistinctTemplatesInTrain++
		}
	}
	n := len(m.questions)
	o.Databases, o.Domains, o.SchemaShapes = ratio(inDB, len(dbs)), ratio(inDomain, len(domains)), ratio(inShape, len(dbs))
	o.WordingsShare, o.SkeletonsShare, o.TemplatesShare = ratio(o.Wordings, n), ratio(o.Skeletons, n), ratio(o.Templates, n)
	o.DistinctTemplates = len(tmpls)
	return o
}
