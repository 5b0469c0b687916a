package mutate

import (
	"encoding/json"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestLexRoundTrip(t *testing.T) {
	tests := []string{
		"",
		"SELECT 1",
		"SELECT a, b FROM t WHERE x >= 1.5e3 AND y <> 'it''s' -- trailing\n",
		"SELECT `first name`, \"last\"\"name\", [odd col] FROM `t` /* block */ WHERE c != 0x1F",
		"SELECT 'unterminated",
		"SELECT \"unterminated",
		"/* unterminated comment",
		"SELECT ?, ?1, :name, @v, $x FROM t",
		"SELECT T1.name || 'x', .5, 3., a->>'$.k' FROM t AS T1;",
		"SELECT 'héllo', naïve_column FROM tablé",
		"SELECT\t*\r\nFROM\tt",
		"#!~^",
	}
	for _, s := range tests {
		if got := render(lex(s)); got != s {
			t.Errorf("render(lex(%q)) = %q", s, got)
		}
	}
}

func TestLexKinds(t *testing.T) {
	tests := []struct {
		in    string
		kinds []tokKind
		texts []string
	}{
		{"a<=b", []tokKind{tWord, tOp, tWord}, []string{"a", "<=", "b"}},
		{"'a''b' x", []tokKind{tString, tSpace, tWord}, []string{"'a''b'", " ", "x"}},
		{"`a b`.c", []tokKind{tQuoted, tOp, tWord}, []string{"`a b`", ".", "c"}},
		{"1.5e-3+.5", []tokKind{tNumber, tOp, tNumber}, []string{"1.5e-3", "+", ".5"}},
		{"x--c\ny", []tokKind{tWord, tComment, tSpace, tWord}, []string{"x", "--c", "\n", "y"}},
		{"T1.id<>2", []tokKind{tWord, tOp, tWord, tOp, tNumber}, []string{"T1", ".", "id", "<>", "2"}},
		{":p ?3", []tokKind{tParam, tSpace, tParam}, []string{":p", " ", "?3"}},
	}
	for _, tt := range tests {
		toks := lex(tt.in)
		var kinds []tokKind
		var texts []string
		for _, tk := range toks {
			kinds = append(kinds, tk.kind)
			texts = append(texts, tk.text)
		}
		if !reflect.DeepEqual(kinds, tt.kinds) || !reflect.DeepEqual(texts, tt.texts) {
			t.Errorf("lex(%q) = %v %q, want %v %q", tt.in, kinds, texts, tt.kinds, tt.texts)
		}
	}
}

// mutationOf returns the mutation of the given kind (nil rng: first place).
func mutationOf(sql, kind string) (string, bool) {
	for _, m := range Mutations(sql, nil) {
		if m.Kind == kind {
			return m.SQL, true
		}
	}
	return "", false
}

func TestMutationKinds(t *testing.T) {
	const (
		join  = "SELECT T1.name, T2.city FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age > 20 AND T2.state = 'Ohio'"
		ratio = "SELECT CAST(SUM(T1.x) AS REAL) * 100 / COUNT(T1.id) FROM t AS T1"
		top   = "SELECT name FROM hero ORDER BY height DESC LIMIT 3"
	)
	tests := []struct {
		name, kind, in, want string
	}{
		{"compare skips ON", KindCompareOp, join,
			"SELECT T1.name, T2.city FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age >= 20 AND T2.state = 'Ohio'"},
		{"compare eq", KindCompareOp, "SELECT a FROM t WHERE b = 1", "SELECT a FROM t WHERE b <> 1"},
		{"literal int", KindLiteralValue, join,
			"SELECT T1.name, T2.city FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age > 21 AND T2.state = 'Ohio'"},
		{"literal string keeps wildcard", KindLiteralValue, "SELECT a FROM t WHERE d LIKE '2019-%'", "SELECT a FROM t WHERE d LIKE '2010-%'"},
		{"literal decimal", KindLiteralValue, "SELECT a FROM t WHERE p < 2.50", "SELECT a FROM t WHERE p < 3.50"},
		{"literal skips LIMIT", KindLiteralValue, "SELECT a FROM t LIMIT 5", ""},
		{"literal case", KindLiteralCase, "SELECT a FROM t WHERE s = 'Ohio'", "SELECT a FROM t WHERE s = 'ohio'"},
		{"drop first conjunct", KindDropConjunct, join,
			"SELECT T1.name, T2.city FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T2.state = 'Ohio'"},
		{"drop only condition", KindDropConjunct, "SELECT a FROM t WHERE b = 1 ORDER BY a", "SELECT a FROM t ORDER BY a"},
		{"between is one conjunct", KindDropConjunct, "SELECT a FROM t WHERE b BETWEEN 1 AND 5", "SELECT a FROM t"},
		{"no drop under top-level OR", KindDropConjunct, "SELECT a FROM t WHERE b = 1 AND c = 2 OR d = 3", ""},
		{"and to or", KindSwapAndOr, join,
			"SELECT T1.name, T2.city FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age > 20 OR T2.state = 'Ohio'"},
		{"between and untouched", KindSwapAndOr, "SELECT a FROM t WHERE b BETWEEN 1 AND 5", ""},
		{"lower-case or to and", KindSwapAndOr, "select a from t where b = 1 or c = 2", "select a from t where b = 1 and c = 2"},
		{"count to sum", KindAggregate, "SELECT COUNT(id) FROM t", "SELECT SUM(id) FROM t"},
		{"count star skipped", KindAggregate, "SELECT COUNT(*), max(x) FROM t", "SELECT COUNT(*), min(x) FROM t"},
		{"add distinct", KindDistinct, "SELECT a FROM t", "SELECT DISTINCT a FROM t"},
		{"remove distinct", KindDistinct, "SELECT DISTINCT a FROM t", "SELECT a FROM t"},
		{"add count distinct", KindCountDistinct, "SELECT COUNT(T1.id) FROM t AS T1", "SELECT COUNT(DISTINCT T1.id) FROM t AS T1"},
		{"remove count distinct", KindCountDistinct, "SELECT count(distinct id) FROM t", "SELECT count(id) FROM t"},
		{"reorder", KindReorderSelect, join,
			"SELECT T2.city, T1.name FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age > 20 AND T2.state = 'Ohio'"},
		{"reorder keeps nested commas", KindReorderSelect, "SELECT SUBSTR(a, 1, 2), b FROM t", "SELECT b, SUBSTR(a, 1, 2) FROM t"},
		{"reorder one column", KindReorderSelect, "SELECT a FROM t", ""},
		{"drop select column", KindDropSelectColumn, join,
			"SELECT T2.city FROM member AS T1 INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age > 20 AND T2.state = 'Ohio'"},
		{"bump limit", KindLimit, top, "SELECT name FROM hero ORDER BY height DESC LIMIT 4"},
		{"add limit before semicolon", KindLimit, "SELECT a FROM t;", "SELECT a FROM t LIMIT 1;"},
		{"flip desc", KindOrderDirection, top, "SELECT name FROM hero ORDER BY height ASC LIMIT 3"},
		{"add desc", KindOrderDirection, "SELECT a FROM t ORDER BY b, c", "SELECT a FROM t ORDER BY b DESC, c"},
		{"no order by", KindOrderDirection, "SELECT a FROM t", ""},
		{"int to text", KindIntText, "SELECT a FROM t WHERE b = 7", "SELECT a FROM t WHERE b = '7'"},
		{"text to int", KindIntText, "SELECT a FROM t WHERE b = '7'", "SELECT a FROM t WHERE b = 7"},
		{"keep leading zero text", KindIntText, "SELECT a FROM t WHERE zip = '02134'", ""},
		{"unwrap cast", KindCastReal, ratio, "SELECT SUM(T1.x) * 100 / COUNT(T1.id) FROM t AS T1"},
		{"wrap division", KindCastReal, "SELECT SUM(x) / COUNT(id) FROM t", "SELECT CAST(SUM(x) AS REAL) / COUNT(id) FROM t"},
		{"wrap qualified", KindCastReal, "SELECT T1.a / T1.b FROM t AS T1", "SELECT CAST(T1.a AS REAL) / T1.b FROM t AS T1"},
		{"duplicate join after alias", KindDuplicateJoin, join,
			"SELECT T1.name, T2.city FROM member AS T1 CROSS JOIN (SELECT 1 UNION ALL SELECT 2) INNER JOIN zip AS T2 ON T1.zip = T2.code WHERE T1.age > 20 AND T2.state = 'Ohio'"},
		{"duplicate join no alias", KindDuplicateJoin, "SELECT a FROM t WHERE b = 1", "SELECT a FROM t CROSS JOIN (SELECT 1 UNION ALL SELECT 2) WHERE b = 1"},
		{"unknown qualified column", KindUnknownColumn, "SELECT T1.name FROM t AS T1", "SELECT T1.naem FROM t AS T1"},
		{"unknown quoted column", KindUnknownColumn, "SELECT T1.`first name` FROM t AS T1", "SELECT T1.`first naem` FROM t AS T1"},
		{"unknown bare column", KindUnknownColumn, "SELECT name, COUNT(id) FROM t", "SELECT naem, COUNT(id) FROM t"},
		{"unknown table", KindUnknownTable, "SELECT a FROM member", "SELECT a FROM membre"},
		{"short table", KindUnknownTable, "SELECT a FROM t", "SELECT a FROM tx"},
		{"syntax", KindSyntaxError, "select a from t", "select a form t"},
		{"syntax without FROM", KindSyntaxError, "SELECT (1 + 2)", "SELECT (1 + 2"},
		{"multi statement", KindMultiStatement, "SELECT a FROM t;", "SELECT a FROM t; SELECT 1"},
		{"add semicolon", KindTrailingSemicolon, "SELECT a FROM t ", "SELECT a FROM t;"},
		{"remove semicolon", KindTrailingSemicolon, "SELECT a FROM t;", "SELECT a FROM t"},
		{"keyword case", KindKeywordCase, "SELECT a AS b FROM t", "select a as b from t"},
		{"delete", KindWriteDelete, join, "DELETE FROM member"},
		{"drop", KindWriteDrop, join, "DROP TABLE member"},
		{"update", KindWriteUpdate, join, "UPDATE member SET rowid = rowid + 1000000"},
		{"insert", KindWriteInsert, join, "INSERT INTO member DEFAULT VALUES"},
		{"cte delete", KindWriteCTEDelete, join, "WITH x AS (SELECT 1) DELETE FROM member"},
		{"attach", KindWriteAttach, join, "ATTACH DATABASE 'sqlrl_attach_probe.sqlite' AS probe"},
		{"pragma", KindWritePragma, join, "PRAGMA writable_schema = ON"},
		{"write multi", KindWriteMultiStatement, "SELECT a FROM t;", "SELECT a FROM t; DELETE FROM t"},
		{"cross join runaway", KindRunawayCrossJoin, join,
			"SELECT COUNT(*) FROM member AS r1, member AS r2, member AS r3, zip AS r4, zip AS r5, zip AS r6"},
		{"recursive runaway", KindRunawayRecursive, "SELECT 1",
			"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r"},
		{"tables from comma list and subquery", KindRunawayCrossJoin, "SELECT a FROM t1, t2 WHERE x IN (SELECT y FROM t3)",
			"SELECT COUNT(*) FROM t1 AS r1, t1 AS r2, t1 AS r3, t2 AS r4, t2 AS r5, t2 AS r6, t3 AS r7, t3 AS r8, t3 AS r9"},
	}
	for _, tt := range tests {
		got, ok := mutationOf(tt.in, tt.kind)
		if tt.want == "" {
			if ok {
				t.Errorf("%s: %s(%q) = %q, want no mutation", tt.name, tt.kind, tt.in, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("%s: %s(%q)\n got  %q (ok=%v)\n want %q", tt.name, tt.kind, tt.in, got, ok, tt.want)
		}
	}
}

func TestEveryKindHasCategoryAndTest(t *testing.T) {
	all := Kinds()
	if len(all) < 12 {
		t.Fatalf("only %d kinds", len(all))
	}
	seen := map[string]bool{}
	for _, k := range all {
		if seen[k] {
			t.Errorf("duplicate kind %q", k)
		}
		seen[k] = true
		if Category(k) == "" {
			t.Errorf("kind %q has no category", k)
		}
	}
	if got := len(SafeKinds()) + len(UnsafeKinds()); got != len(all) {
		t.Errorf("safe+unsafe = %d kinds, want %d", got, len(all))
	}
	for _, k := range SafeKinds() {
		if IsUnsafe(k) {
			t.Errorf("safe kind %q is unsafe", k)
		}
	}
	if Category(KindGold) != CategoryEquivalent || Category("nope") != "" || IsUnsafe(KindGold) {
		t.Error("Category/IsUnsafe of gold or unknown kind")
	}
}

// sampleGolds loads the BIRD sample shipped in the repository, if present.
func sampleGolds(t *testing.T) []Gold {
	t.Helper()
	b, err := os.ReadFile("../datasets/bird-dev-sample/dev.json")
	if err != nil {
		t.Skipf("BIRD sample not available: %v", err)
	}
	var qs []struct {
		QuestionID int    `json:"question_id"`
		DBID       string `json:"db_id"`
		SQL        string `json:"SQL"`
		Difficulty string `json:"difficulty"`
	}
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatal(err)
	}
	out := make([]Gold, len(qs))
	for i, q := range qs {
		out[i] = Gold{QuestionID: q.QuestionID, DBID: q.DBID, SQL: q.SQL, Difficulty: q.Difficulty}
	}
	return out
}

func TestMutationsOnSample(t *testing.T) {
	golds := sampleGolds(t)
	rng := rand.New(rand.NewSource(7))
	kinds := map[string]int{}
	for _, g := range golds {
		seen := map[string]bool{}
		for _, m := range Mutations(g.SQL, rng) {
			kinds[m.Kind]++
			if m.SQL == g.SQL {
				t.Errorf("%s: mutation equals the gold: %q", m.Kind, g.SQL)
			}
			if seen[m.SQL] {
				t.Errorf("%s: duplicate mutation %q", m.Kind, m.SQL)
			}
			seen[m.SQL] = true
			if strings.TrimSpace(m.SQL) == "" || strings.ContainsAny(m.SQL, "\t\r\n") {
				t.Errorf("%s: unusable SQL %q", m.Kind, m.SQL)
			}
			if Category(m.Kind) == "" {
				t.Errorf("unknown kind %q", m.Kind)
			}
		}
	}
	for _, k := range Kinds() {
		if kinds[k] == 0 {
			t.Errorf("kind %q never applied to the sample", k)
		}
	}
}

func TestMutationsDeterministic(t *testing.T) {
	sql := "SELECT T1.a, T2.b, COUNT(T1.c) FROM x AS T1 JOIN y AS T2 ON T1.id = T2.id WHERE T1.d = 'v' AND T2.e > 3 AND T2.f < 9 GROUP BY T1.a ORDER BY T2.b LIMIT 2"
	a := Mutations(sql, rand.New(rand.NewSource(3)))
	b := Mutations(sql, rand.New(rand.NewSource(3)))
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different mutations")
	}
	if !reflect.DeepEqual(Mutations(sql, nil), Mutations(sql, nil)) {
		t.Error("nil rng not deterministic")
	}
}

func TestBuildSet(t *testing.T) {
	golds := []Gold{
		{QuestionID: 1, DBID: "a", SQL: "SELECT x, y FROM t WHERE z = 1 AND w > 2 ORDER BY x LIMIT 3", Difficulty: "simple"},
		{QuestionID: 2, DBID: "b", SQL: "SELECT COUNT(id) FROM u", Difficulty: "moderate"},
	}
	set := BuildSet(golds, 4, 1)
	var perGold [2]int
	for i, p := range set {
		if p.Gold != golds[p.GoldIndex].SQL || p.DBID != golds[p.GoldIndex].DBID || p.Difficulty != golds[p.GoldIndex].Difficulty {
			t.Errorf("prediction %d does not carry its gold's fields: %+v", i, p)
		}
		if IsUnsafe(p.Kind) {
			t.Errorf("default set contains unsafe kind %q", p.Kind)
		}
		perGold[p.GoldIndex]++
	}
	if set[0].Kind != KindGold || set[0].Pred != golds[0].SQL {
		t.Errorf("first prediction is not the gold: %+v", set[0])
	}
	if perGold[0] != 5 || perGold[1] != 5 {
		t.Errorf("predictions per gold = %v, want [5 5]", perGold)
	}
	if !reflect.DeepEqual(set, BuildSet(golds, 4, 1)) {
		t.Error("BuildSet not deterministic")
	}
	unsafe := BuildSet(golds, 3, 1, UnsafeKinds()...)
	if len(unsafe) != 6 {
		t.Errorf("unsafe set has %d predictions, want 6", len(unsafe))
	}
	for _, p := range unsafe {
		if !IsUnsafe(p.Kind) {
			t.Errorf("unsafe set contains %q", p.Kind)
		}
	}
	only := BuildSet(golds, 10, 1, KindGold, KindLimit)
	if len(only) != 4 {
		t.Errorf("gold+limit set has %d predictions, want 4", len(only))
	}
}
