package benchstats

import (
	"regexp"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
)

// normWording is a question as compared for word-for-word overlap:
// lower-cased, white space collapsed.
func normWording(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }

var (
	singleQuoted = regexp.MustCompile(`(^|[^\p{L}\p{N}])'[^']*'($|[^\p{L}\p{N}])`)
	doubleQuoted = regexp.MustCompile(`"[^"]*"|“[^”]*”`)
	numberRe     = regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`)
)

// templater masks questions into templates. It keeps one compiled pattern
// of table and column names per database.
type templater struct {
	schemas map[string]*dataset.Schema
	names   map[string]*regexp.Regexp
}

func newTemplater(schemas map[string]*dataset.Schema) *templater {
	return &templater{schemas: schemas, names: map[string]*regexp.Regexp{}}
}

// template is the question with what varies between instances of one
// question template masked: quoted strings, the gold's string literals
// (the values it filters on), its database's table and column names (also
// with underscores read as spaces, as "first_name" is written "first
// name"), then numbers. Two questions with one template differ only in
// those.
func (t *templater) template(q string, lits []string, dbID string) string {
	s := strings.ToLower(q)
	s = singleQuoted.ReplaceAllString(s, "$1<str>$2")
	s = doubleQuoted.ReplaceAllString(s, "<str>")
	vals := make([]string, 0, len(lits))
	for _, l := range lits {
		if l = strings.ToLower(strings.Trim(l, "%")); strings.TrimSpace(l) != "" {
			vals = append(vals, l)
		}
	}
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	for _, v := range vals {
		s = strings.ReplaceAll(s, v, "<val>")
	}
	if re := t.namePattern(dbID); re != nil {
		s = re.ReplaceAllString(s, "$1<id>")
	}
	s = numberRe.ReplaceAllString(s, "<num>")
	return strings.Join(strings.Fields(s), " ")
}

// namePattern matches any table or column name of the database as a whole
// word, longest first.
func (t *templater) namePattern(dbID string) *regexp.Regexp {
	if re, ok := t.names[dbID]; ok {
		return re
	}
	sc := t.schemas[dbID]
	if sc == nil {
		t.names[dbID] = nil
		return nil
	}
	set := map[string]bool{}
	add := func(n string) {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			return
		}
		set[n] = true
		if strings.Contains(n, "_") {
			set[strings.ReplaceAll(n, "_", " ")] = true
		}
	}
	for _, n := range sc.TableNames {
		add(n)
	}
	for _, c := range sc.Columns {
		if c.Table >= 0 {
			add(c.Name)
		}
	}
	alts := make([]string, 0, len(set))
	for a := range set {
		alts = append(alts, a)
	}
	slices.SortFunc(alts, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	var re *regexp.Regexp
	if len(alts) > 0 {
		// Go's regexp has no lookbehind: the character before the name
		// is captured and put back. The end is a zero-width \b, so that
		// two names in a row both match, except after a name that ends
		// in punctuation ("rate (%)"), where \b would need a letter.
		for i, a := range alts {
			q := regexp.QuoteMeta(a)
			if last := a[len(a)-1]; last == '_' || last >= '0' && last <= '9' || last >= 'a' && last <= 'z' {
				q += `\b`
			}
			alts[i] = q
		}
		re = regexp.MustCompile(`(^|[^\p{L}\p{N}_])(?:` + strings.Join(alts, "|") + `)`)
	}
	t.names[dbID] = re
	return re
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
