package sqlgen

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Tests for the defects bench/REVIEW-v2.md found in v2's dev questions.

// TestNamesItself: "Name the X" is worded only where X's name column is
// what a reader gives as its name (review: "Name the producer" answered
// with the first name alone).
func TestNamesItself(t *testing.T) {
	cases := []struct {
		noun, phrase string
		want         bool
	}{
		{"project", "name", true},
		{"show", "title", true},
		{"project", "project name", true},
		{"transit stop", "stop name", true},
		{"producer", "first name", false},
		{"artist", "stage name", false},
		{"package", "tracking code", false},
		{"acquisition", "donor name", false},
	}
	ws := []string{"Which {one} has the most? Give the {n}.", "Name the {one} with the most.", "Name the {ns} of the {np}."}
	for _, c := range cases {
		tb := &tbl{t: &schemagen.Table{Noun: schemagen.Noun{One: c.noun}}, name: &col{c: &schemagen.Column{Phrase: c.phrase}}}
		if got := namesItself(tb); got != c.want {
			t.Errorf("namesItself(%s, %s) = %v, want %v", c.noun, c.phrase, got, c.want)
		}
		kept := named(tb, ws)
		hasBare := false
		for _, w := range kept {
			if w == ws[1] {
				hasBare = true
			}
			if w == ws[2] && strings.Contains(c.phrase, "name") {
				t.Errorf("%s/%s: kept %q", c.noun, c.phrase, w)
			}
		}
		if hasBare != c.want {
			t.Errorf("%s/%s: bare \"Name the {one}\" kept = %v, want %v", c.noun, c.phrase, hasBare, c.want)
		}
	}
}

// TestNameNotBookkeeping: no table is named by a bookkeeping column
// (review: "Name the data session with the largest megabytes" answered
// with the clerk who entered the record).
func TestNameNotBookkeeping(t *testing.T) {
	found := 0
	for _, d := range schemagen.Domains() {
		for seed := uint64(1); seed <= 3; seed++ {
			db, err := schemagen.Design(d, seed)
			if err != nil {
				t.Fatal(err)
			}
			m, err := buildModel(db)
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range m.tables {
				for _, c := range tb.t.Columns {
					if c.Bookkeeping && c.Role == schemagen.RoleName {
						found++
					}
				}
				if tb.name != nil && tb.name.c.Bookkeeping {
					t.Errorf("%s: table %s is named by bookkeeping column %s", db.ID, tb.t.Name, tb.name.c.Name)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no bookkeeping name column in any design: the test checks nothing")
	}
}

// TestRelPhrases: every relation phrase reads after a noun (review:
// "health checks examined an animal", "copies a copy of a book"); a
// phrase that starts with an article must be rewritten by relFix.
func TestRelPhrases(t *testing.T) {
	cases := map[string]string{"examined": "examining", "a copy of": "of", "placed by": "placed by", "lent": "lending", "lent to": "lent to"}
	for in, want := range cases {
		if got := relPhrase(in, true); got != want {
			t.Errorf("relPhrase(%q) = %q, want %q", in, got, want)
		}
	}
	for _, d := range schemagen.Domains() {
		db, err := schemagen.Design(d, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range db.Tables {
			for _, fk := range tb.FKs {
				r := relPhrase(fk.Phrase, true)
				if strings.HasPrefix(r, "a ") || strings.HasPrefix(r, "an ") {
					t.Errorf("%s.%s: relation phrase %q does not read after a noun", tb.Name, fk.Column, r)
				}
			}
		}
	}
}

// TestReviewWordings: a count per category that leaves out the rows
// without a value says so (review: "Break down the number of quality
// inspections by source system" dropped the NULL group unstated); yes/no
// flags are not worded as values ("a restaurant with has drive thru of
// no", "having yes as delayed", "whose active is missing").
func TestReviewWordings(t *testing.T) {
	bad := regexp.MustCompile(`\b(of|having) (yes|no)\b|\b(yes|no) as \w|is missing|is not missing|(each|per) the `)
	root := t.TempDir()
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root})
	defer eng.Close()
	re := regexp.MustCompile(`IS NOT NULL GROUP BY`)
	n := 0
	for _, d := range schemagen.Domains()[:8] {
		db, err := schemagen.Design(d, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemagen.Write(context.Background(), db, filepath.Join(root, db.ID)); err != nil {
			t.Fatal(err)
		}
		qs, err := Generate(context.Background(), db, eng, Options{Seed: 1, N: 150})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if bad.MatchString(q.Question) {
				t.Errorf("%s: unnatural wording %q", db.ID, q.Question)
			}
			if !re.MatchString(q.SQL) || strings.Contains(q.SQL, "HAVING") {
				continue
			}
			n++
			if !strings.Contains(q.Question, "not recorded") && !strings.Contains(q.Question, "missing") {
				t.Errorf("%s: %q leaves out NULLs unstated: %s", db.ID, q.Question, q.SQL)
			}
		}
	}
	if n == 0 {
		t.Fatal("no count per nullable category generated: the test checks nothing")
	}
	t.Logf("%d counts per nullable category", n)
}
