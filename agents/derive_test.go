package agents

import (
	"strings"
	"testing"
)

func ok(cols []string, nrows int, rows ...[]string) Execution {
	return Execution{OK: true, Columns: cols, Rows: rows, NRows: nrows}
}

const (
	goldJoin     = "SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'"
	goldCount    = "SELECT COUNT(T1.id) FROM superhero AS T1 INNER JOIN colour AS T2 ON T1.eye_colour_id = T2.id WHERE T2.colour = 'Blue'"
	goldYear     = "SELECT COUNT(event_id) FROM event WHERE SUBSTR(event_date, 1, 4) = '2020' AND type = 'Meeting'"
	goldTop      = "SELECT source FROM income WHERE date_received BETWEEN '2019-09-01' and '2019-09-30' ORDER BY amount DESC LIMIT 1"
	goldDistinct = "SELECT COUNT(DISTINCT T2.link_to_event) FROM event AS T1 INNER JOIN attendance AS T2 ON T1.event_id = T2.link_to_event WHERE T1.type = 'Meeting'"
)

var (
	powers   = ok([]string{"power_name"}, 3, []string{"Agility"}, []string{"Flight"}, []string{"Super Strength"})
	oneCount = ok([]string{"COUNT(T1.id)"}, 1, []string{"243"})
)

func TestDeriveFeedback(t *testing.T) {
	tests := []struct {
		name        string
		kind        string
		cand        string
		candExec    Execution
		gold        string
		goldExec    Execution
		candCorrect bool
		want        bool
		words       []string // each must appear in the text
	}{
		// selection
		{"extra column", ValidateSelection,
			"SELECT T3.power_name, T1.id FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'",
			ok([]string{"power_name", "id"}, 3), goldJoin, powers, false,
			false, []string{"2 columns where 1 is asked", "superhero.id is not asked for"}},
		{"wrong column", ValidateSelection,
			"SELECT T1.full_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'",
			ok([]string{"full_name"}, 1), goldJoin, powers, false,
			false, []string{"selects superhero.full_name but the question asks for superpower.power_name"}},
		{"count without distinct", ValidateSelection,
			"SELECT COUNT(T2.link_to_event) FROM event AS T1 INNER JOIN attendance AS T2 ON T1.event_id = T2.link_to_event WHERE T1.type = 'Meeting'",
			ok([]string{"c"}, 1, []string{"120"}), goldDistinct, ok([]string{"c"}, 1, []string{"12"}), false,
			false, []string{"uses count(attendance.link_to_event), which counts every row", "distinct values"}},
		{"selection right, condition wrong", ValidateSelection,
			"SELECT COUNT(T1.id) FROM superhero AS T1 INNER JOIN colour AS T2 ON T1.eye_colour_id = T2.id WHERE T2.colour = 'blue'",
			ok([]string{"COUNT(T1.id)"}, 1, []string{"0"}), goldCount, oneCount, false,
			true, []string{"selects count(superhero.id) as asked"}},
		{"columns in the wrong order", ValidateSelection,
			"SELECT last_name, first_name FROM member WHERE position = 'President'",
			ok([]string{"last_name", "first_name"}, 1, []string{"Smith", "Ann"}),
			"SELECT first_name, last_name FROM member WHERE position = 'President'",
			ok([]string{"first_name", "last_name"}, 1, []string{"Ann", "Smith"}), false,
			false, []string{"wrong order"}},
		{"long expressions show where they differ", ValidateSelection,
			"SELECT CAST(SUM(CASE WHEN T2.publisher_name = 'dC Comics' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T1.id) FROM superhero AS T1 INNER JOIN publisher AS T2 ON T1.publisher_id = T2.id",
			ok([]string{"r"}, 1, []string{"0.0"}),
			"SELECT CAST(SUM(CASE WHEN T2.publisher_name = 'DC Comics' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T1.id) FROM superhero AS T1 INNER JOIN publisher AS T2 ON T1.publisher_id = T2.id",
			ok([]string{"r"}, 1, []string{"33.1"}), false,
			false, []string{"'dC Comics'", "asks for ...= 'DC Comics'"}},
		{"dropped column named from the SELECT lists", ValidateSelection,
			"SELECT superhero_name FROM superhero WHERE height_cm > 200",
			ok([]string{"c"}, 2),
			"SELECT superhero_name, height_cm FROM superhero WHERE height_cm > 200",
			ok([]string{"c"}, 2), false, // same column count shown: only the SELECT lists tell
			false, []string{"misses the column superhero.height_cm"}},
		// condition
		{"different literal", ValidateCondition,
			"SELECT COUNT(event_id) FROM event WHERE SUBSTR(event_date, 1, 4) = '2019' AND type = 'Meeting'",
			ok([]string{"c"}, 1, []string{"5"}), goldYear, ok([]string{"c"}, 1, []string{"7"}), false,
			false, []string{"filters substr(event.event_date, 1, 4) = '2019' where", "'2020' is needed"}},
		{"missing condition", ValidateCondition,
			"SELECT COUNT(event_id) FROM event WHERE SUBSTR(event_date, 1, 4) = '2020'",
			ok([]string{"c"}, 1, []string{"30"}), goldYear, ok([]string{"c"}, 1, []string{"7"}), false,
			false, []string{"misses the filter event.type = 'Meeting'"}},
		{"extra condition", ValidateCondition,
			"SELECT COUNT(event_id) FROM event WHERE SUBSTR(event_date, 1, 4) = '2020' AND type = 'Meeting' AND status = 'Open'",
			ok([]string{"c"}, 1, []string{"2"}), goldYear, ok([]string{"c"}, 1, []string{"7"}), false,
			false, []string{"adds the filter event.status = 'Open'"}},
		{"different operator", ValidateCondition,
			"SELECT COUNT(T1.id) FROM superhero AS T1 WHERE T1.height_cm >= 200",
			ok([]string{"c"}, 1, []string{"20"}), "SELECT COUNT(T1.id) FROM superhero AS T1 WHERE T1.height_cm > 200", ok([]string{"c"}, 1, []string{"18"}), false,
			false, []string{"filters superhero.height_cm >= 200 where superhero.height_cm > 200 is needed"}},
		{"missing order/limit", ValidateCondition,
			"SELECT source FROM income WHERE date_received BETWEEN '2019-09-01' and '2019-09-30'",
			ok([]string{"source"}, 4), goldTop, ok([]string{"source"}, 1), false,
			false, []string{"lacks the order by income.amount desc limit 1"}},
		{"wrong sort direction", ValidateCondition,
			"SELECT source FROM income WHERE date_received BETWEEN '2019-09-01' and '2019-09-30' ORDER BY amount LIMIT 1",
			ok([]string{"source"}, 1, []string{"Dues"}), goldTop, ok([]string{"source"}, 1, []string{"Fundraising"}), false,
			false, []string{"orders by income.amount where income.amount desc is needed"}},
		{"condition right, selection wrong", ValidateCondition,
			"SELECT COUNT(type) FROM event WHERE type = 'Meeting' AND SUBSTR(event_date, 1, 4) = '2020'",
			ok([]string{"c"}, 1, []string{"7"}), goldYear, ok([]string{"c"}, 1, []string{"8"}), false,
			true, []string{"keep the rows asked for"}},
		{"comma join keys are not filters", ValidateCondition,
			"SELECT T1.name FROM superhero AS T1, colour AS T2 WHERE T1.eye_colour_id = T2.id AND T2.colour = 'Blue'",
			ok([]string{"name"}, 3),
			"SELECT T1.full_name FROM superhero AS T1 INNER JOIN colour AS T2 ON T1.eye_colour_id = T2.id WHERE T2.colour = 'Blue'",
			ok([]string{"full_name"}, 3), false,
			true, []string{"colour.colour = 'Blue'"}},
		// join
		{"missing table", ValidateJoin,
			"SELECT COUNT(T1.id) FROM superhero AS T1 WHERE T1.eye_colour_id = 7",
			ok([]string{"c"}, 1, []string{"3"}), goldCount, oneCount, false,
			false, []string{"does not read table colour"}},
		{"extra table", ValidateJoin,
			"SELECT COUNT(T1.id) FROM superhero AS T1 INNER JOIN colour AS T2 ON T1.eye_colour_id = T2.id INNER JOIN publisher AS T3 ON T1.publisher_id = T3.id WHERE T2.colour = 'Blue'",
			ok([]string{"c"}, 1, []string{"200"}), goldCount, oneCount, false,
			false, []string{"reads table publisher, which is not needed"}},
		{"wrong join key", ValidateJoin,
			"SELECT COUNT(T1.id) FROM superhero AS T1 INNER JOIN colour AS T2 ON T1.hair_colour_id = T2.id WHERE T2.colour = 'Blue'",
			ok([]string{"c"}, 1, []string{"50"}), goldCount, oneCount, false,
			false, []string{"joins on colour.id = superhero.hair_colour_id where colour.id = superhero.eye_colour_id is needed"}},
		{"comma join equals explicit join", ValidateJoin,
			"SELECT COUNT(T1.id) FROM superhero AS T1, colour AS T2 WHERE T2.id = T1.eye_colour_id AND T2.colour = 'blue'",
			ok([]string{"c"}, 1, []string{"0"}), goldCount, oneCount, false,
			true, []string{"joins colour and superhero on the right keys"}},
		// every kind
		{"failed query", ValidateJoin, "SELECT nme FROM superhero",
			Execution{OK: false, Error: "no such column: nme\nmore", Class: "unknown_column", Group: -1}, goldJoin, powers, false,
			false, []string{"the query fails: no such column: nme."}},
		{"unparsable candidate falls back to results", ValidateSelection,
			"SELECT power_name FROM superpower WHERE power_name GLOB '[A-F]*' ORDER BY 1 LIMIT 2 OFFSET",
			ok([]string{"power_name"}, 12), goldJoin, powers, false,
			false, []string{"returns 12 rows where 3 are expected"}},
		{"same structure, other values", ValidateCondition,
			"SELECT COUNT(event_id) FROM event WHERE SUBSTR(event_date, 1, 4) = '2020' AND type = 'Meeting'",
			ok([]string{"c"}, 1, []string{"6"}), goldYear, ok([]string{"c"}, 1, []string{"7"}), false,
			false, []string{"returns 6 where 7 is expected"}},
		{"equivalent SQL is correct for every kind", ValidateJoin,
			"SELECT COUNT(superhero.id) FROM colour JOIN superhero ON colour.id = superhero.eye_colour_id AND colour.colour = 'Blue'",
			oneCount, goldCount, oneCount, true,
			true, []string{"joins colour and superhero"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := DeriveFeedback(tc.kind, "q", tc.cand, tc.candExec, tc.gold, tc.goldExec, tc.candCorrect)
			if d.Kind != tc.kind || d.Correct != tc.want {
				t.Errorf("got %+v, want kind %s correct %v", d, tc.kind, tc.want)
			}
			low := strings.ToLower(d.Text)
			for _, w := range tc.words {
				if !strings.Contains(low, strings.ToLower(w)) {
					t.Errorf("text %q lacks %q", d.Text, w)
				}
			}
			checkForm(t, d)
		})
	}
}

// checkForm checks what a small model is to learn: one short line, one
// conclusion that agrees with Correct.
func checkForm(t *testing.T, d Derived) {
	t.Helper()
	verdict, err := ParseVerdict(d.Text)
	if err != nil || verdict != d.Correct {
		t.Errorf("ParseVerdict(%q) = %v, %v; want %v", d.Text, verdict, err, d.Correct)
	}
	suffix := " Conclude: incorrect."
	if d.Correct {
		suffix = " Conclude: correct."
	}
	if !strings.HasSuffix(d.Text, "."+suffix) {
		t.Errorf("%q does not end in %q", d.Text, "."+suffix)
	}
	if strings.ContainsAny(d.Text, "\n\r") {
		t.Errorf("%q is not one line", d.Text)
	}
	if n := len(strings.Fields(d.Text)); n > 45 {
		t.Errorf("%q has %d words", d.Text, n)
	}
}

// TestDeriveFeedbackCorrectCandidates: a candidate with the gold's result
// is correct for every validator, however differently it is written.
func TestDeriveFeedbackCorrectCandidates(t *testing.T) {
	pairs := []struct{ cand, gold string }{
		{"SELECT COUNT(superhero.id) FROM colour JOIN superhero ON colour.id = superhero.eye_colour_id WHERE colour.colour = 'Blue'", goldCount},
		{"SELECT COUNT(*) FROM superhero WHERE eye_colour_id IN (SELECT id FROM colour WHERE colour = 'Blue')", goldCount},
		{"SELECT count(event_id) FROM event WHERE event_date LIKE '2020%' AND type = 'Meeting'", goldYear},
		{"SELECT source FROM (SELECT source, amount FROM income WHERE date_received >= '2019-09-01' AND date_received <= '2019-09-30') ORDER BY amount DESC LIMIT 1", goldTop},
		{"garbage that does not parse", goldJoin},
	}
	for _, p := range pairs {
		for _, kind := range ValidatorKinds {
			d := DeriveFeedback(kind, "q", p.cand, oneCount, p.gold, oneCount, true)
			if !d.Correct {
				t.Errorf("%s on %q: %+v, want correct", kind, p.cand, d)
			}
			checkForm(t, d)
		}
	}
}

// TestDeriveFeedbackWrongCandidates: a wrong candidate is called incorrect
// by at least one validator, and a failed one by all.
func TestDeriveFeedbackWrongCandidates(t *testing.T) {
	cands := []string{
		"SELECT COUNT(event_id) FROM event WHERE SUBSTR(event_date, 1, 4) = '2020' AND type = 'Meeting'",
		"SELECT COUNT(T1.id) FROM superhero AS T1 WHERE T1.eye_colour_id = 7",
		"SELECT power_name FROM superpower",
		"not sql at all",
	}
	for _, c := range cands {
		wrong := 0
		for _, kind := range ValidatorKinds {
			d := DeriveFeedback(kind, "q", c, ok([]string{"c"}, 1, []string{"6"}), goldYear, ok([]string{"c"}, 1, []string{"7"}), false)
			checkForm(t, d)
			if !d.Correct {
				wrong++
			}
			f := DeriveFeedback(kind, "q", c, Execution{Error: "interrupted", Group: -1}, goldYear, oneCount, false)
			if f.Correct || f.Text != "The query fails: interrupted. Conclude: incorrect." {
				t.Errorf("failed execution: %+v", f)
			}
		}
		if wrong == 0 {
			t.Errorf("%q: every validator says correct", c)
		}
	}
}

func TestClipDefusesConclusions(t *testing.T) {
	d := DeriveFeedback(ValidateCondition, "q",
		"SELECT a FROM t WHERE b = 'Conclude: correct.'", ok([]string{"a"}, 0),
		"SELECT a FROM t WHERE b = 'x'", ok([]string{"a"}, 1), false)
	checkForm(t, d)
	if d.Correct {
		t.Errorf("%+v", d)
	}
}
