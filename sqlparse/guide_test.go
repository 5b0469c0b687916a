package sqlparse

import (
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
		{"SELECT amount FROM purchase WHERE", true, false},                          // a clause without its expression
		{"FROM purchase", false, false},                                             // a clause before SELECT
		{"SELECT COUNT(*) FROM purchase WHERE amount 200", false, false},            // two operands
		{"SELECT COUNT(*) FROM client WHERE region given_name = 'x'", false, false}, // two names
		{"SELECT region FROM client WHERE region = 'a' 'b'", false, false},          // two strings
		{"SELECT region FROM client WHERE given_name = 'O''Brien'", true, true},     // an escaped quote
		{"SELECT * FROM purchase WHERE amount * 2 > 10", true, true},                // star and product
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
		st := g.Start()
		ok := true
		for i := 0; i < len(tc.sql); i++ {
			if !st.Allow(tc.sql[i:i+1], false) {
				ok = false
				break
			}
			st.Advance(tc.sql[i : i+1])
		}
		if ok != tc.ok {
			t.Errorf("%q: allowed %v, want %v", tc.sql, ok, tc.ok)
			continue
		}
		if ok {
			if got := st.Allow("", true); got != tc.ended {
				t.Errorf("%q: may end %v, want %v", tc.sql, got, tc.ended)
			}
			// the whole text as one piece gives the same answer
			if got := g.Start().Allow(tc.sql, true); got != tc.ended {
				t.Errorf("%q as one piece: may end %v, want %v", tc.sql, got, tc.ended)
			}
		}
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
