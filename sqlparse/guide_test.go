package sqlparse

import "testing"

func TestGuide(t *testing.T) {
	g := NewGuide(map[string][]string{
		"client":   {"client_id", "given_name", "Region"},
		"purchase": {"purchase_id", "client_id", "amount"},
		"odd one":  {"first name"},
	})
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
		{"SELECT COUNT(* FROM client", true, false},                      // open parenthesis
		{"SELECT given_na", true, false},                                 // a name half written
		{"SELECT T1.", true, false},                                      // qualifier without column
		{"SELECT client_i FROM client", false, false},                    // half-copied name
		{"SELECT nme FROM client", false, false},                         // unknown column
		{"SELECT given_name FROM customer", false, false},                // unknown table
		{"SELECT client.amount FROM client", false, false},               // column of another table
		{"SELECT T1.amount FROM purchase AS T2 JOIN client AS T1 ON T1.amount", false, false},
		{"SELECT COUNT(*)) FROM client", false, false},    // ')' without '('
		{"SELECT 1; SELECT 2", false, false},              // a second statement
		{"SELECT `first nam` FROM client", false, false},  // quoted unknown name
		{"SELECT T1.'x' FROM client AS T1", false, false}, // a string after "T1."
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
	g := NewGuide(map[string][]string{"client": {"region"}})
	st := g.Start()
	st.Advance("SELECT region AS r FROM client WHERE ")
	if st.Allow("region AS y", false) != true {
		t.Fatal("an alias definition was refused")
	}
	if st.Allow("y", true) {
		t.Error("an alias only tried in Allow was committed")
	}
	if !st.Allow("r = 1", true) {
		t.Error("an alias defined by Advance was forgotten")
	}
}
