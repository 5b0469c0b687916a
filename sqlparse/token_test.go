package sqlparse

import (
	"strings"
	"testing"
)

// concat joins token texts; the lexer's contract is that this returns its input.
func concat(toks []Token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Text)
	}
	return b.String()
}

// checkRoundTrip verifies the lossless-lexing contract: texts concatenate to the
// input, offsets are contiguous and no token is empty.
func checkRoundTrip(t *testing.T, sql string) {
	t.Helper()
	toks := Tokenize(sql)
	if got := concat(toks); got != sql {
		t.Fatalf("round trip mismatch:\n in: %q\nout: %q", sql, got)
	}
	off := 0
	for i, tok := range toks {
		if tok.Text == "" {
			t.Fatalf("token %d is empty in %q", i, sql)
		}
		if tok.Offset != off {
			t.Fatalf("token %d %q at offset %d, want %d (input %q)", i, tok.Text, tok.Offset, off, sql)
		}
		if sql[tok.Offset:tok.End()] != tok.Text {
			t.Fatalf("token %d text %q does not match input slice", i, tok.Text)
		}
		off = tok.End()
	}
}

func TestTokenizeRoundTripGoldSQL(t *testing.T) {
	n := 0
	for _, g := range loadGolden(t) {
		checkRoundTrip(t, g.SQL)
		n++
	}
	for _, u := range loadUnparsed(t) {
		checkRoundTrip(t, u.SQL)
		n++
	}
	if n < 900 {
		t.Fatalf("only %d gold queries round-tripped; testdata incomplete?", n)
	}
}

type kt struct {
	kind Kind
	text string
}

func TestTokenizeKinds(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []kt
	}{
		{"keywords and identifiers", "SELECT name FROM t", []kt{
			{KindKeyword, "SELECT"}, {KindWhitespace, " "}, {KindIdentifier, "name"},
			{KindWhitespace, " "}, {KindKeyword, "FROM"}, {KindWhitespace, " "}, {KindIdentifier, "t"}}},
		{"keyword case-insensitive", "select Distinct", []kt{
			{KindKeyword, "select"}, {KindWhitespace, " "}, {KindKeyword, "Distinct"}}},
		{"qualified name", "T1.name", []kt{
			{KindIdentifier, "T1"}, {KindPunctuation, "."}, {KindIdentifier, "name"}}},
		{"quoted identifiers", "\"a b\" `c``d` [e f]", []kt{
			{KindQuotedIdentifier, "\"a b\""}, {KindWhitespace, " "},
			{KindQuotedIdentifier, "`c``d`"}, {KindWhitespace, " "}, {KindQuotedIdentifier, "[e f]"}}},
		{"string with escaped quote", "'it''s'", []kt{{KindString, "'it''s'"}}},
		{"empty string", "''", []kt{{KindString, "''"}}},
		{"numbers", "1 1.5 .5 1e10 2.5E-3 0x1F 1_000", []kt{
			{KindNumber, "1"}, {KindWhitespace, " "}, {KindNumber, "1.5"}, {KindWhitespace, " "},
			{KindNumber, ".5"}, {KindWhitespace, " "}, {KindNumber, "1e10"}, {KindWhitespace, " "},
			{KindNumber, "2.5E-3"}, {KindWhitespace, " "}, {KindNumber, "0x1F"}, {KindWhitespace, " "},
			{KindNumber, "1_000"}}},
		{"number glued to name is illegal", "12abc", []kt{{KindIllegal, "12abc"}}},
		{"trailing dot number", "1.", []kt{{KindNumber, "1."}}},
		{"exponent needs digits", "1e", []kt{{KindIllegal, "1e"}}},
		{"operators", "a<=b>=c!=d<>e==f||g", []kt{
			{KindIdentifier, "a"}, {KindOperator, "<="}, {KindIdentifier, "b"}, {KindOperator, ">="},
			{KindIdentifier, "c"}, {KindOperator, "!="}, {KindIdentifier, "d"}, {KindOperator, "<>"},
			{KindIdentifier, "e"}, {KindOperator, "=="}, {KindIdentifier, "f"}, {KindOperator, "||"},
			{KindIdentifier, "g"}}},
		{"more operators", "a<<b>>c->d->>e%f&g|h~i", []kt{
			{KindIdentifier, "a"}, {KindOperator, "<<"}, {KindIdentifier, "b"}, {KindOperator, ">>"},
			{KindIdentifier, "c"}, {KindOperator, "->"}, {KindIdentifier, "d"}, {KindOperator, "->>"},
			{KindIdentifier, "e"}, {KindOperator, "%"}, {KindIdentifier, "f"}, {KindOperator, "&"},
			{KindIdentifier, "g"}, {KindOperator, "|"}, {KindIdentifier, "h"}, {KindOperator, "~"},
			{KindIdentifier, "i"}}},
		{"minus and line comment", "a-1--x\nb", []kt{
			{KindIdentifier, "a"}, {KindOperator, "-"}, {KindNumber, "1"}, {KindComment, "--x"},
			{KindWhitespace, "\n"}, {KindIdentifier, "b"}}},
		{"block comment", "a/* x */b/c", []kt{
			{KindIdentifier, "a"}, {KindComment, "/* x */"}, {KindIdentifier, "b"},
			{KindOperator, "/"}, {KindIdentifier, "c"}}},
		{"punctuation", "f(a,b);", []kt{
			{KindIdentifier, "f"}, {KindPunctuation, "("}, {KindIdentifier, "a"}, {KindPunctuation, ","},
			{KindIdentifier, "b"}, {KindPunctuation, ")"}, {KindPunctuation, ";"}}},
		{"parameters", "? ?1 :n @n $n", []kt{
			{KindParameter, "?"}, {KindWhitespace, " "}, {KindParameter, "?1"}, {KindWhitespace, " "},
			{KindParameter, ":n"}, {KindWhitespace, " "}, {KindParameter, "@n"}, {KindWhitespace, " "},
			{KindParameter, "$n"}}},
		{"blob and x identifier", "X'AB' x xy", []kt{
			{KindBlob, "X'AB'"}, {KindWhitespace, " "}, {KindIdentifier, "x"}, {KindWhitespace, " "},
			{KindIdentifier, "xy"}}},
		{"illegal bytes", "a ! # ^ b", []kt{
			{KindIdentifier, "a"}, {KindWhitespace, " "}, {KindIllegal, "!"}, {KindWhitespace, " "},
			{KindIllegal, "#"}, {KindWhitespace, " "}, {KindIllegal, "^"}, {KindWhitespace, " "},
			{KindIdentifier, "b"}}},
		{"utf-8 names", "SELECT nombre_año, 名前 FROM t", []kt{
			{KindKeyword, "SELECT"}, {KindWhitespace, " "}, {KindIdentifier, "nombre_año"},
			{KindPunctuation, ","}, {KindWhitespace, " "}, {KindIdentifier, "名前"},
			{KindWhitespace, " "}, {KindKeyword, "FROM"}, {KindWhitespace, " "}, {KindIdentifier, "t"}}},
		{"dollar inside name", "a$b", []kt{{KindIdentifier, "a$b"}}},
		{"whitespace run", " \t\r\n\f", []kt{{KindWhitespace, " \t\r\n\f"}}},
		{"empty input", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			toks := Tokenize(tc.sql)
			got := make([]kt, len(toks))
			for i, tok := range toks {
				got[i] = kt{tok.Kind, tok.Text}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("Tokenize(%q) = %v, want %v", tc.sql, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("Tokenize(%q)[%d] = %v, want %v (all: %v)", tc.sql, i, got[i], tc.want[i], got)
				}
			}
			checkRoundTrip(t, tc.sql)
		})
	}
}

func TestTokenizeUnterminated(t *testing.T) {
	tests := []struct {
		sql  string
		kind Kind
	}{
		{"SELECT 'abc", KindString},
		{"SELECT 'it''", KindString},
		{"SELECT '", KindString},
		{`SELECT "abc`, KindQuotedIdentifier},
		{"SELECT `abc", KindQuotedIdentifier},
		{"SELECT [abc", KindQuotedIdentifier},
		{"SELECT x'AB", KindBlob},
		{"SELECT /* abc", KindComment},
		{"SELECT /*/", KindComment},
	}
	for _, tc := range tests {
		toks := Tokenize(tc.sql)
		checkRoundTrip(t, tc.sql)
		last := toks[len(toks)-1]
		if last.Kind != tc.kind || last.Terminated() {
			t.Errorf("Tokenize(%q) last token = %v %q terminated=%v, want unterminated %v",
				tc.sql, last.Kind, last.Text, last.Terminated(), tc.kind)
		}
		if last.End() != len(tc.sql) {
			t.Errorf("Tokenize(%q): unterminated token should run to the end", tc.sql)
		}
	}
	for _, ok := range []string{"'a'", "''", "'it''s'", `"a"`, "``", "[a]", "x''", "/**/", "-- x"} {
		if tok := Tokenize(ok)[0]; !tok.Terminated() {
			t.Errorf("Tokenize(%q)[0] should be terminated", ok)
		}
	}
}

func TestKindString(t *testing.T) {
	if KindKeyword.String() != "Keyword" || Kind(99).String() != "Kind(99)" {
		t.Fatalf("unexpected Kind names: %v %v", KindKeyword, Kind(99))
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"SELECT DISTINCT T1.name FROM t AS T1 WHERE x >= 1 AND y <> 'a''b' -- c\n",
		"/* unterminated", "'open", "\"q\"\"x\"", "[x", "x'", "0x", "1e+", ".5e-3", "?12:a@b$c#",
		"a->>b||c!=d", "\xff\xfe", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		toks := Tokenize(sql)
		if got := concat(toks); got != sql {
			t.Fatalf("round trip mismatch: %q -> %q", sql, got)
		}
		off := 0
		for _, tok := range toks {
			if tok.Text == "" || tok.Offset != off {
				t.Fatalf("bad token %+v at expected offset %d", tok, off)
			}
			_ = tok.Terminated()
			off = tok.End()
		}
		// The consumers of the lexer must not panic on anything it produces.
		_, _ = SpiderHardnessCounts(sql)
		_ = RemoveDistinct(sql)
	})
}
