package schemagen

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The vocabulary is written in a small line language (domains_*.go) rather
// than as Go struct literals: forty domains of a dozen tables each are
// readable at one line per column, and the parser checks every reference
// when the package is first used, so a typo fails the tests, not a run.
//
//	= domain | title
//	kind[?] name/plural rows [abbr] [| description]     (kind: entity event link lookup distractor; ? = optional table)
//	  column[?] kind args [| phrase]                      (? = optional column)
//	  @person y1 y2                                       (first/last name, sex, birth date, city, state, email, phone)
//	  @place                                              (city and state of the row)
//
// Column kinds: name (pool a;b;c | gen company | gen person | gen title a;b / x;y
// | gen serial PFX), text (pool | email | phone), cat a;b;c, code K=meaning;...,
// money lo hi, measure unit lo hi, count lo hi, date y1 y2, after column d1 d2,
// flag, ref table phrase..., city, state.

// domainSpec is one domain of the vocabulary.
type domainSpec struct {
	name, title string
	tables      []*tableSpec
}

// tableSpec is one table of a domain's vocabulary.
type tableSpec struct {
	name, plural, kind, abbr, desc string
	optional                       bool
	rows                           int
	attrs                          []*attrSpec
}

// attrSpec is one column template.
type attrSpec struct {
	name, kind, phrase string
	optional           bool
	args               []string // kind-specific
	pool               []string // name/text/cat pools; code keys
	meanings           []string // code meanings, parallel to pool
	pool2              []string // title generator: second word list
	lo, hi             float64
	unit               string
	ref                string // ref: target table
	bookkeeping        bool   // added to every table of its kind (addBookkeeping)
}

func (a *attrSpec) role() string {
	switch a.kind {
	case "name":
		return RoleName
	case "text":
		return RoleText
	case "cat", "city":
		return RoleCategory
	case "code", "state", "sex":
		return RoleCode
	case "money", "measure":
		return RoleMeasure
	case "count":
		return RoleCount
	case "date", "after":
		return RoleDate
	case "flag":
		return RoleFlag
	case "ref":
		return RoleFK
	}
	return ""
}

var (
	vocabOnce sync.Once
	vocab     []*domainSpec
	vocabErr  error
)

// domainSources collects each file's domain text; parsed once on first use.
var domainSources []string

func loadVocab() ([]*domainSpec, error) {
	vocabOnce.Do(func() {
		seen := map[string]bool{}
		for _, src := range domainSources {
			ds, err := parseDomains(src)
			if err != nil {
				vocabErr = err
				return
			}
			for _, d := range ds {
				if seen[d.name] {
					vocabErr = fmt.Errorf("vocabulary: domain %s defined twice", d.name)
					return
				}
				seen[d.name] = true
				vocab = append(vocab, d)
			}
		}
		sort.Slice(vocab, func(i, j int) bool { return vocab[i].name < vocab[j].name })
	})
	return vocab, vocabErr
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ";") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func parseDomains(src string) ([]*domainSpec, error) {
	var out []*domainSpec
	var d *domainSpec
	var t *tableSpec
	for ln, line := range strings.Split(src, "\n") {
		where := func(err error) error {
			return fmt.Errorf("vocabulary line %d %q: %w", ln+1, strings.TrimSpace(line), err)
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "="):
			name, title, _ := strings.Cut(trimmed[1:], "|")
			d = &domainSpec{name: strings.TrimSpace(name), title: strings.TrimSpace(title)}
			out = append(out, d)
			t = nil
		case line[0] != ' ' && line[0] != '\t':
			if d == nil {
				return nil, where(fmt.Errorf("table before domain"))
			}
			head, desc, _ := strings.Cut(trimmed, "|")
			f := strings.Fields(head)
			if len(f) < 3 {
				return nil, where(fmt.Errorf("want kind name/plural rows"))
			}
			t = &tableSpec{kind: f[0], desc: strings.TrimSpace(desc)}
			if strings.HasSuffix(t.kind, "?") {
				t.optional, t.kind = true, strings.TrimSuffix(t.kind, "?")
			}
			switch t.kind {
			case KindEntity, KindEvent, KindLink, KindLookup, KindDistractor:
			default:
				return nil, where(fmt.Errorf("unknown table kind %s", t.kind))
			}
			var ok bool
			if t.name, t.plural, ok = strings.Cut(f[1], "/"); !ok {
				return nil, where(fmt.Errorf("want name/plural"))
			}
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return nil, where(err)
			}
			t.rows = n
			if len(f) > 3 {
				t.abbr = f[3]
			}
			d.tables = append(d.tables, t)
		default:
			if t == nil {
				return nil, where(fmt.Errorf("column before table"))
			}
			attrs, err := parseAttr(trimmed)
			if err != nil {
				return nil, where(err)
			}
			t.attrs = append(t.attrs, attrs...)
		}
	}
	for _, d := range out {
		if err := checkDomain(d); err != nil {
			return nil, err
		}
		for _, t := range d.tables {
			if err := addBookkeeping(t); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// bookkeeping are the optional columns real tables accumulate besides their
// subject (who entered a row, when, free notes, an active flag): they widen
// schemas towards BIRD's 72 columns a database and are distractors for the
// questions, which seldom need them.
var bookkeeping = map[string][]string{
	KindEntity: {"record_created? date 2010 2024 | record creation date", "status_code? code A=Active;I=Inactive;P=Pending review",
		"notes? text Verified;Follow up needed;Migrated from legacy system;See attached file;Updated on request;Checked twice"},
	KindEvent: {"entered_by? name gen person | clerk who entered the record", "last_modified? date 2023 2024 | last modification date",
		"source_system? code W=Web form;M=Manual entry;I=Import;A=API"},
	KindLookup: {"sort_order? count 1 30", "is_active? flag | active", "description? text Standard;Legacy;Seasonal;Regional;Core;Experimental"},
	KindLink:   {"linked_on? date 2012 2024 | date the link was recorded"},
}

func addBookkeeping(t *tableSpec) error {
	have := map[string]bool{}
	for _, a := range t.attrs {
		have[a.name] = true
	}
	for _, line := range bookkeeping[t.kind] {
		as, err := parseAttr(line)
		if err != nil {
			return fmt.Errorf("bookkeeping column %q: %w", line, err)
		}
		for _, a := range as {
			if !have[a.name] {
				a.bookkeeping = true
				t.attrs = append(t.attrs, a)
			}
		}
	}
	return nil
}

func num(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func parseAttr(s string) ([]*attrSpec, error) {
	body, phrase, _ := strings.Cut(s, "|")
	phrase = strings.TrimSpace(phrase)
	f := strings.Fields(body)
	if f[0] == "@person" || f[0] == "@place" {
		var out []*attrSpec
		if f[0] == "@person" {
			if len(f) != 3 {
				return nil, fmt.Errorf("@person wants birth years y1 y2")
			}
			out = append(out,
				&attrSpec{name: "first_name", kind: "name", args: []string{"gen", "first"}},
				&attrSpec{name: "last_name", kind: "name", args: []string{"gen", "last"}},
				&attrSpec{name: "sex", kind: "sex", optional: true, pool: []string{"F", "M"}, meanings: []string{"female", "male"}},
			)
			b, err := parseAttr("birth_date? date " + f[1] + " " + f[2])
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
		out = append(out, &attrSpec{name: "city", kind: "city", optional: f[0] == "@person"},
			&attrSpec{name: "state", kind: "state", optional: true})
		if f[0] == "@person" {
			out = append(out, &attrSpec{name: "email", kind: "text", optional: true, args: []string{"email"}},
				&attrSpec{name: "phone", kind: "text", optional: true, args: []string{"phone"}})
		}
		return out, nil
	}
	if len(f) < 2 {
		return nil, fmt.Errorf("want column kind")
	}
	a := &attrSpec{name: f[0], kind: f[1], phrase: phrase, args: f[2:]}
	if strings.HasSuffix(a.name, "?") {
		a.optional, a.name = true, strings.TrimSuffix(a.name, "?")
	}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), f[0]))
	rest = strings.TrimSpace(strings.TrimPrefix(rest, f[1]))
	var err error
	need := func(n int) error {
		if len(a.args) != n {
			return fmt.Errorf("%s wants %d arguments", a.kind, n)
		}
		return nil
	}
	switch a.kind {
	case "name":
		if len(a.args) > 0 && a.args[0] == "gen" {
			if len(a.args) < 2 {
				return nil, fmt.Errorf("gen wants a generator")
			}
			switch a.args[1] {
			case "company", "person", "first", "last":
			case "serial":
				if len(a.args) != 3 {
					return nil, fmt.Errorf("gen serial wants a prefix")
				}
			case "title":
				w1, w2, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(rest, "gen title")), "/")
				if !ok {
					return nil, fmt.Errorf("gen title wants a;b / x;y")
				}
				a.pool, a.pool2 = splitList(w1), splitList(w2)
			default:
				return nil, fmt.Errorf("unknown generator %s", a.args[1])
			}
		} else if a.args, a.pool = nil, splitList(rest); len(a.pool) < 3 {
			return nil, fmt.Errorf("name pool of %d", len(a.pool))
		}
	case "text":
		if rest != "email" && rest != "phone" {
			if a.pool = splitList(rest); len(a.pool) < 3 {
				return nil, fmt.Errorf("text pool of %d", len(a.pool))
			}
		}
	case "cat":
		if a.pool = splitList(rest); len(a.pool) < 2 {
			return nil, fmt.Errorf("category of %d", len(a.pool))
		}
	case "code":
		for _, kv := range splitList(rest) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("code %q wants K=meaning", kv)
			}
			a.pool, a.meanings = append(a.pool, strings.TrimSpace(k)), append(a.meanings, strings.TrimSpace(v))
		}
		if len(a.pool) < 2 {
			return nil, fmt.Errorf("code of %d", len(a.pool))
		}
	case "money":
		if err = need(2); err == nil {
			a.unit = "USD"
			a.lo, err = num(a.args[0])
			if err == nil {
				a.hi, err = num(a.args[1])
			}
		}
	case "measure":
		if err = need(3); err == nil {
			a.unit = a.args[0]
			a.lo, err = num(a.args[1])
			if err == nil {
				a.hi, err = num(a.args[2])
			}
		}
	case "count", "date":
		if err = need(2); err == nil {
			a.lo, err = num(a.args[0])
			if err == nil {
				a.hi, err = num(a.args[1])
			}
		}
	case "after":
		if err = need(3); err == nil {
			a.ref = a.args[0]
			a.lo, err = num(a.args[1])
			if err == nil {
				a.hi, err = num(a.args[2])
			}
		}
	case "flag", "city", "state":
	case "ref":
		if len(a.args) < 2 {
			return nil, fmt.Errorf("ref wants a table and a phrase")
		}
		a.ref = a.args[0]
	default:
		return nil, fmt.Errorf("unknown column kind %s", a.kind)
	}
	if err != nil {
		return nil, err
	}
	return []*attrSpec{a}, nil
}

// checkDomain checks references and names once, at load.
func checkDomain(d *domainSpec) error {
	tables := map[string]*tableSpec{}
	for _, t := range d.tables {
		if tables[t.name] != nil {
			return fmt.Errorf("domain %s: table %s twice", d.name, t.name)
		}
		tables[t.name] = t
	}
	for _, t := range d.tables {
		cols := map[string]bool{}
		refs := 0
		for _, a := range t.attrs {
			if cols[a.name] {
				return fmt.Errorf("domain %s: table %s: column %s twice", d.name, t.name, a.name)
			}
			cols[a.name] = true
			switch a.kind {
			case "ref":
				rt := tables[a.ref]
				if rt == nil {
					return fmt.Errorf("domain %s: table %s: column %s: unknown table %s", d.name, t.name, a.name, a.ref)
				}
				if rt.kind == KindLink {
					return fmt.Errorf("domain %s: table %s: column %s refers to link table %s, which has no single key", d.name, t.name, a.name, a.ref)
				}
				if rt == t && !a.optional {
					return fmt.Errorf("domain %s: table %s: self reference %s must be optional (the first row has no parent)", d.name, t.name, a.name)
				}
				if !a.optional {
					refs++
				}
			case "after":
				if !cols[a.ref] {
					return fmt.Errorf("domain %s: table %s: column %s: after unknown or later column %s", d.name, t.name, a.name, a.ref)
				}
			}
		}
		if t.kind == KindLink && refs != 2 {
			return fmt.Errorf("domain %s: link table %s has %d required refs, want 2", d.name, t.name, refs)
		}
		if t.kind == KindEvent {
			hasDate := false
			for _, a := range t.attrs {
				hasDate = hasDate || (a.kind == "date" && !a.optional)
			}
			if !hasDate {
				return fmt.Errorf("domain %s: event table %s has no required date", d.name, t.name)
			}
		}
	}
	return nil
}
