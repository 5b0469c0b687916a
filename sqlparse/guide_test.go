package sqlparse

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestGuide(t *testing.T) {
	g := NewGuide(map[string][]string{
		"client":   {"client_id", "given_name", "Region"},
		"purchase": {"purchase_id", "client_id", "amount"},
		"odd one":  {"first name"},
	}, nil)
	tests := []struct {
		sql   string
		ok    bool // every prefix allowed
		ended bool // and it may end there
	}{
		{"SELECT COUNT(*) FROM client WHERE region = 'Texas'", true, true},
		{"SELECT COUNT(*) FROM client WHERE given_name = 'x' AND region, [client_id] = 'y'", false, false}, // a condition is no list
		{"SELECT COUNT(*) FROM purchase GROUP BY client_id HAVING COUNT(*), amount > 1", false, false},
		{"SELECT amount FROM purchase WHERE client_id IN (1, 2) AND substr(amount, 1, 2) = '1'", true, true}, // commas inside parentheses
		{"SELECT amount FROM purchase WHERE amount = (SELECT MAX(amount) FROM purchase GROUP BY client_id, amount)", true, true},
		{"SELECT client_id, amount FROM purchase, client GROUP BY client_id, amount ORDER BY amount, client_id LIMIT 1, 2", true, true},
		{"SELECT amount FROM purchase WHERE amount < --1", false, false},   // a comment
		{"SELECT amount FROM purchase WHERE amount in 2001", false, false}, // IN takes a list
		{"SELECT amount FROM purchase WHERE amount IN '2001'", false, false},
		{"SELECT amount FROM purchase WHERE amount IN -1", false, false},
		{"SELECT amount FROM purchase WHERE amount IN region", false, false},
		{"SELECT amount FROM purchase WHERE amount NOT IN (1, 2)", true, true},
		{"SELECT amount FROM purchase WHERE client_id IN client", false, false}, // SQLite's IN table: a bare table is refused anyway
		{"SELECT amount FROM purchase WHERE client_id IN (SELECT client_id FROM client)", true, true},
		{"SELECT amount FROM purchase WHERE amount < - -1", true, true}, // two minus signs
		{"SELECT amount /* x */ FROM purchase", false, false},
		{"SELECT amount / 2 * 3 FROM purchase", true, true},
		{"SELECT T1.given_name FROM client AS T1 INNER JOIN purchase AS T2 ON T1.client_id = T2.client_id WHERE T2.amount > 3.5", true, true},
		{"SELECT SUM(amount) AS total FROM purchase GROUP BY client_id ORDER BY total DESC LIMIT 1", true, true},
		{"SELECT strftime('%Y', amount) FROM purchase", true, true},      // anything in strings
		{"SELECT `first name` FROM `odd one`", true, true},               // quoted names
		{"select t2.AMOUNT from purchase as t2;", true, true},            // any case, a final ';'
		{"SELECT T1.* FROM client AS T1", true, true},                    // star after a qualifier
		{"SELECT client.region FROM client", true, true},                 // qualified by the table
		{"SELECT COUNT(*) FROM client WHERE region = 'Tex", true, false}, // open string
		{"SELECT COUNT(*", true, false},                                  // open parenthesis
		{"SELECT COUNT(* FROM client", false, false},                     // a clause inside an expression
		{"SELECT region FROM client WHERE region IN (SELECT region FROM client)", true, true},
		{"SELECT CASE WHEN amount > 1 THEN 1 ELSE 0 END FROM purchase", true, true},
		{"SELECT CASE WHEN amount > 1 THEN 1 FROM purchase", false, false}, // FROM before END
		{"SELECT CASE WHEN amount > 1 THEN 1", true, false},                // CASE open
		{"SELECT amount FROM purchase WHERE amount > 1 INNER JOIN client", false, false},
		{"SELECT amount FROM purchase GROUP BY amount WHERE amount > 1", false, false},
		{"SELECT amount FROM purchase ORDER BY amount LIMIT 1 OFFSET 2", true, true},
		{"SELECT amount FROM purchase UNION SELECT region FROM client", true, true},
		{"SELECT RANK() OVER (ORDER BY amount) FROM purchase", true, true},
		{"  SELECT amount FROM purchase", true, true},                                                // a little leading space
		{"   SELECT amount FROM purchase", false, false},                                             // a blank run instead of SQL
		{"SELECT amount\n        FROM purchase", true, true},                                         // indented formatting
		{"SELECT amount" + strings.Repeat(" ", 17) + "FROM purchase", false, false},                  // a longer blank run
		{"SELECT amount FROM purchase WHERE region = '" + strings.Repeat(" ", 40) + "'", true, true}, // blanks inside a string are data
		{"SELECT amount FROM purchase WHERE", true, false},                                           // a clause without its expression
		{"FROM purchase", false, false},                                                              // a clause before SELECT
		{"SELECT COUNT(*) FROM purchase WHERE amount 200", false, false},                             // two operands
		{"SELECT COUNT(*) FROM client WHERE region given_name = 'x'", false, false},                  // two names
		{"SELECT region FROM client WHERE region = 'a' 'b'", false, false},                           // two strings
		{"SELECT region FROM client WHERE given_name = 'O''Brien'", true, true},                      // an escaped quote
		{"SELECT * FROM purchase WHERE amount * 2 > 10", true, true},                                 // star and product
		{"SELECT CAST(COUNT(*) AS REAL) * 100 / COUNT(amount) FROM purchase", true, true},
		{"SELECT amount (", false, false},                           // a name is no function
		{"SELECT amount FROM purchase WHERE amount >", true, false}, // an operator wants an operand
		{"SELECT amount FROM purchase ORDER BY amount DESC", true, true},
		{"SELECT ", true, false},
		{"SELECT T2.amount FROM client AS T1 INNER JOIN client", false, false}, // T2 would lack amount
		{"SELECT T2.amount FROM client AS T1 INNER JOIN purchase AS T2 ON T1.client_id = T2.client_id", true, true},
		{"SELECT T1.region FROM purchase", false, false},                         // the first table is T1
		{"SELECT T2.amount FROM purchase AS T1 JOIN client AS T2", false, false}, // an explicit T2 without amount
		{"SELECT COUNT(*) FROM client WHERE region DESC", false, false},          // DESC outside ORDER BY
		{"SELECT COUNT(*) FROM client WHERE region count", false, false},         // a function after an operand
		{"SELECT COUNT(*) FROM client WHERE region AS", false, false},            // AS in WHERE
		{"SELECT region AS r FROM client AS c ORDER BY r DESC", true, true},
		{"SELECT region FROM region", false, false},     // a column where a table goes
		{"SELECT amount FROM %')", false, false},        // after FROM: a table, not an operator
		{"SELECT amount FROM 'purchase'", false, false}, // nor a string
		{"SELECT amount FROM purchase INNER JOIN )", false, false},
		{"SELECT amount FROM (SELECT amount FROM purchase)", true, true},   // a subquery
		{"SELECT amount FROM ((SELECT amount FROM purchase))", true, true}, // in two parentheses
		{"SELECT amount FROM ('%", false, false},                           // SELECT first
		{"SELECT amount FROM (amount", false, false},
		{"SELECT amount FROM purchase%'", false, false}, // an operator after a table
		{"SELECT amount FROM purchase AS T1 WHERE T1.amount % 2 = 1", true, true},
		{"SELECT amount FROM purchase WHERE = 1", false, false},        // an operator wants an operand
		{"SELECT COUNT(% FROM purchase", false, false},                 // nor after '('
		{"SELECT amount FROM purchase WHERE amount <= -1", true, true}, // two-character operator, unary minus
		{"SELECT amount FROM purchase WHERE amount <> 2 OR amount != 3", true, true},
		{"SELECT region || '-' || given_name FROM client", true, true},
		{"SELECT T1.amount, T1.region FROM client", true, false}, // no table has both: any table rather than no SQL
		{"SELECT amount FROM purchase JOIN `odd one`", true, true},
		{"SELECT region] FROM client", false, false}, // not SQL
		{"SELECT amount FROM purchase WHERE amount > 20THEN", false, false},
		{"SELECT amount FROM purchase WHERE amount > 2.5", true, true},
		{"SELECT region FROM client CoUnT", false, false},   // a keyword in mixed case
		{"SELECT Region FROM Client", true, true},           // names in any case
		{"SELECT CAST = 'SUM' THEN 1", false, false},        // THEN outside CASE
		{"SELECT T1.region FROM client AS T2", true, false}, // T1 never defined
		{"SELECT T1.region FROM client AS T1", true, true},
		{"SELECT given_na", true, false},                   // a name half written
		{"SELECT T1.", true, false},                        // qualifier without column
		{"SELECT client_i FROM client", false, false},      // half-copied name
		{"SELECT nme FROM client", false, false},           // unknown column
		{"SELECT given_name FROM customer", false, false},  // unknown table
		{"SELECT client.amount FROM client", false, false}, // column of another table
		{"SELECT T1.amount FROM purchase AS T2 JOIN client AS T1 ON T1.amount", false, false},
		{"SELECT COUNT(*)) FROM client", false, false},    // ')' without '('
		{"SELECT 1; SELECT 2", false, false},              // a second statement
		{"SELECT `first nam` FROM client", false, false},  // quoted unknown name
		{"SELECT T1.'x' FROM client AS T1", false, false}, // a string after "T1."
		{"SELECT given_name, region FROM client", true, true},
		{"SELECT , region FROM client", false, false},            // a comma before any item
		{"SELECT given_name,, region FROM client", false, false}, // two commas
		{"SELECT COUNT(*), region FROM client", true, true},
	}
	for _, tc := range tests {
		checkReplay(t, g, tc.sql, tc.sql, tc.ok, tc.ended)
	}
}

// checkReplay feeds sql to a fresh state of g byte by byte: every byte
// must be allowed iff ok, and then the SQL may end iff ended, whether fed
// byte by byte or as one piece.
func checkReplay(t *testing.T, g *Guide, name, sql string, ok, ended bool) {
	t.Helper()
	st := g.Start()
	allowed := true
	for i := 0; i < len(sql); i++ {
		if !st.Allow(sql[i:i+1], false) {
			allowed = false
			break
		}
		st.Advance(sql[i : i+1])
	}
	if allowed != ok {
		t.Errorf("%s: %q: allowed %v, want %v", name, sql, allowed, ok)
		return
	}
	if !allowed {
		return
	}
	if got := st.Allow("", true); got != ended {
		t.Errorf("%s: %q: may end %v, want %v", name, sql, got, ended)
	}
	if got := g.Start().Allow(sql, true); got != ended {
		t.Errorf("%s: %q as one piece: may end %v, want %v", name, sql, got, ended)
	}
}

// The holes through which guided decodes of a small model still wrote
// SQL that SQLite refuses (pred | SQLite's error): each bad text is
// refused, its valid neighbours are not.
func TestGuideHoles(t *testing.T) {
	g := NewGuide(map[string][]string{
		"client":        {"client_id", "given_name", "family_name", "town"},
		"item":          {"item_id", "item_name", "units_in_stock", "list_price"},
		"purchase_line": {"purchase_id", "item_id", "qty", "sale_price", "discount_rate", "purchase_status"},
	}, nil)
	tests := []struct {
		name  string
		sql   string
		ok    bool // every prefix allowed
		ended bool // and it may end there
	}{
		// near "=": AND, OR, IS, IN want an operand
		{"operator after AND", "SELECT given_name FROM client WHERE town and  = 'Nashville'", false, false},
		{"AND after AND", "SELECT given_name FROM client WHERE town = 'a' AND AND town = 'b'", false, false},
		{"operator after IS", "SELECT COUNT(*) FROM client WHERE town is  = 'Jacksonville'", false, false},
		{"AND after IS", "SELECT COUNT(*) FROM client WHERE town IS AND town = 'x'", false, false},
		{"ORDER after IS", "SELECT COUNT(*) FROM client WHERE town IS ORDER BY town", false, false},
		{"AND after IN", "SELECT COUNT(*) FROM client WHERE town IN AND town = 'x'", false, false},
		{"AND, IS NOT NULL", "SELECT COUNT(*) FROM client WHERE town = 'x' AND town IS NOT NULL", true, true},
		{"NOT after AND", "SELECT COUNT(*) FROM client WHERE town = 'x' AND NOT town IN ('a', 'b')", true, true},
		{"NOT LIKE, NOT BETWEEN", "SELECT COUNT(*) FROM client WHERE town NOT LIKE 'a%' AND client_id NOT BETWEEN 1 AND 2", true, true},
		{"LEFT OUTER JOIN", "SELECT T1.town FROM client AS T1 LEFT OUTER JOIN purchase_line AS T2 ON T1.client_id = T2.purchase_id", true, true},
		{"UNION ALL", "SELECT town FROM client UNION ALL SELECT town FROM client", true, true},
		{"x AND)", "SELECT COUNT(*) FROM client WHERE (town = 'a' AND)", false, false},
		// near "ASC": ORDER and GROUP want BY
		{"ORDER ASC", "SELECT item_name FROM item WHERE units_in_stock = 2 order ASC LIMIT 1", false, false},
		{"ORDER ''", "SELECT item_name FROM item order ''", false, false},
		{"GROUP town", "SELECT town FROM client GROUP town", false, false},
		{"ORDER bY", "SELECT item_name FROM item ORDER bY item_name", false, false},
		{"BY alone", "SELECT SUM(qty BY qty) FROM purchase_line", false, false},
		{"ORDER BY ASC", "SELECT item_name FROM item ORDER BY list_price ASC LIMIT 1", true, true},
		{"ASC then an operand", "SELECT item_name FROM item ORDER BY list_price ASC 0", false, false},
		{"two ORDER BY terms", "SELECT item_name FROM item ORDER BY list_price DESC, item_name ASC", true, true},
		{"GROUP BY HAVING", "SELECT town FROM client GROUP BY town HAVING COUNT(*) > 1", true, true},
		// no such column: item (a table, bare)
		{"table as a column", "SELECT COUNT(*) FROM item WHERE item = 'Office' AND list_price > 150", false, false},
		{"table as a selected column", "SELECT item FROM item", false, false},
		{"alias as a column", "SELECT COUNT(*) FROM client AS T1 WHERE T1 = 'x'", false, false},
		{"table before a dot", "SELECT item.item_name FROM item WHERE item.list_price > 150", true, true},
		{"alias before a dot", "SELECT T1.item_name FROM item AS T1", true, true},
		{"tables listed in FROM", "SELECT T1.town FROM client AS T1, item AS T2", true, true},
		{"a column before a dot", "SELECT given_name.town FROM client", false, false},
		// no such column: T2.qty (an alias never defined)
		{"';' with an alias undefined", "SELECT SUM(T2.qty * T2.sale_price * (1 - T2.discount_rate));", false, false},
		{"end with an alias undefined", "SELECT SUM(T2.qty * T2.sale_price * (1 - T2.discount_rate))", true, false},
		{"';' after an operator", "SELECT COUNT(*) FROM client WHERE client_id >;", false, false},
		{"';' with the alias defined", "SELECT SUM(T2.qty) FROM purchase_line AS T2;", true, true},
		{"UNION with an alias undefined", "SELECT T1.town FROM client UNION SELECT town FROM client", false, false},
		{"each query of a UNION its own aliases", "SELECT T2.town FROM item AS T1 JOIN client AS T2 UNION SELECT T2.qty FROM item AS T1 JOIN purchase_line AS T2", true, true},
		// near "AS": AS in parentheses only in CAST
		{"AS in SUM", "SELECT SUM(T1.qty AS T1.purchase_status) FROM purchase_line AS T1", false, false},
		{"AS then a qualified name", "SELECT T1.qty AS T1.purchase_status FROM purchase_line AS T1", false, false},
		{"CAST AS a name", "SELECT CAST(qty AS qty) FROM purchase_line", false, false},
		{"CAST without AS", "SELECT CAST(qty) FROM purchase_line", false, false},
		{"two AS in CAST", "SELECT CAST(qty AS REAL AS REAL) FROM purchase_line", false, false},
		{"AS in a CASE", "SELECT CASE WHEN qty > 1 THEN 1 AS x END FROM purchase_line", false, false},
		{"CAST AS REAL", "SELECT CAST(SUM(qty) AS REAL) / COUNT(*) FROM purchase_line", true, true},
		{"AS after a subquery", "SELECT COUNT(*) FROM (SELECT town FROM client) AS s WHERE s.town = 'x'", true, true},
		// near "ELSE": WHEN ... THEN ... [ELSE ...] END
		{"ELSE before THEN", "SELECT CAST(SUM(CASE WHEN T1.qty ELSE 0 END) AS REAL) FROM purchase_line AS T1", false, false},
		{"END before THEN", "SELECT CASE WHEN qty > 1 END FROM purchase_line", false, false},
		{"THEN before WHEN", "SELECT CASE qty THEN 1 END FROM purchase_line", false, false},
		{"two ELSE", "SELECT CASE WHEN qty > 1 THEN 1 ELSE 0 ELSE 2 END FROM purchase_line", false, false},
		{"END after ELSE", "SELECT CASE WHEN qty > 1 THEN 1 ELSE END FROM purchase_line", false, false},
		{"CASE WHEN THEN ELSE END", "SELECT SUM(CASE WHEN qty > 1 THEN 1 ELSE 0 END) FROM purchase_line", true, true},
		{"simple CASE, two WHEN", "SELECT CASE qty WHEN 1 THEN 'a' WHEN 2 THEN 'b' END FROM purchase_line", true, true},
		{"nested CASE", "SELECT CASE WHEN qty > 1 THEN CASE WHEN qty > 2 THEN 2 ELSE 1 END ELSE 0 END FROM purchase_line", true, true},
		// DISTINCT after SELECT, '(' or IS only
		{"WHERE DISTINCT", "SELECT COUNT(*) FROM client WHERE DISTINCT town = 'x'", false, false},
		{"COUNT(DISTINCT", "SELECT COUNT(DISTINCT town) FROM client", true, true},
		{"T1. *", "SELECT COUNT(*) FROM client AS T1 WHERE T1. * = 1", false, false},
		{"T1.* outside the select list", "SELECT COUNT(*) FROM client AS T1 WHERE T1.* = 1", false, false},
		{"quoted table counts as T1", "SELECT T2.qty FROM `client` AS T1 JOIN purchase_line AS T2", true, true},
	}
	for _, tc := range tests {
		checkReplay(t, g, tc.name, tc.sql, tc.ok, tc.ended)
	}
}

// Allow must not change the state it is asked about.
func TestGuideAllowIsPure(t *testing.T) {
	g := NewGuide(map[string][]string{"client": {"region"}}, nil)
	st := g.Start()
	st.Advance("SELECT region AS r, ")
	if st.Allow("region AS y", false) != true {
		t.Fatal("an alias definition was refused")
	}
	if st.Allow("y", true) {
		t.Error("an alias only tried in Allow was committed")
	}
	if !st.Allow("r + 1", true) {
		t.Error("an alias defined by Advance was forgotten")
	}
}

func TestWords(t *testing.T) {
	names := map[string]bool{"client": true, "region": true, "amount": true}
	got := Words("SELECT T1.region, COUNT(*) AS n FROM client AS T1 WHERE amount > 2 AND region = 'x' GROUP BY T1.region", func(w string) bool { return names[w] })
	want := "select count as from as where and group by"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("Words: %q, want %q", s, want)
	}
	// a guide held to those words refuses others
	g := NewGuide(map[string][]string{"client": {"region"}}, got)
	if !g.Start().Allow("SELECT COUNT(*) FROM client WHERE region = 'a'", true) {
		t.Error("refused a query of its own words")
	}
	if g.Start().Allow("SELECT MAX(region) FROM client", true) {
		t.Error("accepted MAX, not among its words")
	}
}

// goldCorpora are the benchmarks whose gold SQL a guide must admit: the
// committed BIRD sample, and the generated benchmarks under data/ (not
// committed: their checks skip where they were not generated).
var goldCorpora = []struct {
	dir    string
	splits []string
}{
	{"../datasets/bird-dev-sample", []string{"dev"}},
	{"../data/bench", []string{"train", "dev"}},
	{"../data/bench-v2", []string{"train", "dev", "dev_compositional", "dev_id"}},
}

// loadGold reads a split's gold queries and its databases' tables (the
// split's Spider-style tables.json) as NewGuide takes them.
func loadGold(t *testing.T, dir, split string) (golds []struct {
	QuestionID int    `json:"question_id"`
	DBID       string `json:"db_id"`
	SQL        string
}, schemas map[string]map[string][]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, split+".json"))
	if err != nil {
		t.Fatalf("load %s gold: %v", split, err)
	}
	if err := json.Unmarshal(b, &golds); err != nil {
		t.Fatalf("load %s: %v", filepath.Join(dir, split+".json"), err)
	}
	path := filepath.Join(dir, split+"_tables.json")
	if b, err = os.ReadFile(path); err != nil {
		t.Fatalf("load %s tables: %v", split, err)
	}
	var dbs []struct {
		DBID    string   `json:"db_id"`
		Tables  []string `json:"table_names_original"`
		Columns [][2]any `json:"column_names_original"`
	}
	if err := json.Unmarshal(b, &dbs); err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	schemas = map[string]map[string][]string{}
	for _, db := range dbs {
		tables := map[string][]string{}
		for _, tn := range db.Tables {
			tables[tn] = nil
		}
		for _, c := range db.Columns {
			i, _ := c[0].(float64)
			name, _ := c[1].(string)
			if i >= 0 && int(i) < len(db.Tables) {
				tables[db.Tables[int(i)]] = append(tables[db.Tables[int(i)]], name)
			}
		}
		schemas[db.DBID] = tables
	}
	return golds, schemas
}

// Every gold query of every corpus is writable byte by byte under a guide
// of its database, with SQLite's words and with the words of the corpus's
// first split (as a model is held to its training SQL's words), and may
// end where it ends: a rule that refuses valid SQL makes the decoder write
// something worse.
func TestGuideAcceptsGolds(t *testing.T) {
	for _, c := range goldCorpora {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			if _, err := os.Stat(c.dir); errors.Is(err, fs.ErrNotExist) {
				t.Skipf("%s not generated", c.dir)
			}
			var words []string
			for k, split := range c.splits {
				golds, schemas := loadGold(t, c.dir, split)
				if len(golds) == 0 {
					t.Fatalf("%s: no gold", split)
				}
				if k == 0 {
					seen := map[string]bool{}
					for _, g := range golds {
						names := map[string]bool{}
						for tn, cs := range schemas[g.DBID] {
							names[strings.ToLower(tn)] = true
							for _, c := range cs {
								names[strings.ToLower(c)] = true
							}
						}
						for _, w := range Words(g.SQL, func(w string) bool { return names[w] }) {
							if !seen[w] {
								seen[w] = true
								words = append(words, w)
							}
						}
					}
				}
				for _, ws := range [][]string{nil, words} {
					guides := map[string]*Guide{}
					bad := 0
					for _, g := range golds {
						gd := guides[g.DBID]
						if gd == nil {
							gd = NewGuide(schemas[g.DBID], ws)
							guides[g.DBID] = gd
						}
						if outerNamesSubqueryAliases.MatchString(g.SQL) {
							continue // a known limitation: see outerNamesSubqueryAliases
						}
						if msg := replay(gd, g.SQL); msg != "" {
							if bad++; bad <= 10 {
								t.Errorf("%s question %d (%d words): %s", split, g.QuestionID, len(ws), msg)
							}
						}
					}
					if bad > 10 {
						t.Errorf("%s: %d gold queries refused in all", split, bad)
					}
				}
			}
		})
	}
}

// outerNamesSubqueryAliases matches the gold queries a guide refuses: an
// outer select list of names that only its FROM subquery defines later
// ("SELECT grp, name FROM (SELECT x AS grp, ..."). Admitting any unknown
// name there would admit every half-copied column name too.
var outerNamesSubqueryAliases = regexp.MustCompile(`^SELECT [a-z_]+(, [a-z_]+)* FROM \(SELECT `)

// replay feeds sql to a guide byte by byte; it returns where it was
// refused, or "" when every byte was allowed and it may end.
func replay(g *Guide, sql string) string {
	st := g.Start()
	for k := 0; k < len(sql); k++ {
		if !st.Allow(sql[k:k+1], false) {
			return "refused at " + sql[:k] + "|" + sql[k:]
		}
		st.Advance(sql[k : k+1])
	}
	if !st.Allow("", true) {
		return "may not end: " + sql
	}
	return ""
}
