package eval

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestCompared(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want map[string][]string
	}{
		{"SELECT a FROM t WHERE city = 'Sacramento' AND email LIKE '%@aol.com'", map[string][]string{"sacramento": {"city"}, "@aol.com": {"email"}}},
		{"SELECT COUNT(*) FROM t AS T1 WHERE T1.status = 'Delivered' AND T1.\"Pay Type\" = 'card'", map[string][]string{"delivered": {"status"}, "card": {"pay type"}}},
		{"SELECT 1 FROM r WHERE term = 'Spring 2023' AND grade = 'Spring 2023'", map[string][]string{"spring 2023": {"term", "grade"}}},
		{"SELECT 1 FROM r WHERE name = 'O''Brien' AND 'x' = y AND n = 3", map[string][]string{"o'brien": {"name"}}},
		// unparseable text still has its comparisons read
		{"SELECT x FROM t WHERE a = 'v' order by town = 'w' %' names", map[string][]string{"v": {"a"}, "w": {"town"}}},
		{"SELECT 1", map[string][]string{}},
		// a literal cut off at the end of a completion
		{"SELECT 1 FROM t WHERE name = 'Kowal", map[string][]string{"kowal": {"name"}}},
	} {
		if got := compared(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("compared(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

// TestCompare counts by hand: four questions on two levels; the EX, the
// flips and their sign test, the class changes and the literal checks.
func TestCompare(t *testing.T) {
	q := func(id int, level string, correct bool, class, pred string) QuestionResult {
		return QuestionResult{QuestionID: id, Difficulty: level, Pred: pred, Outcome: Outcome{Correct: correct, Class: class}}
	}
	before := &Report{Questions: []QuestionResult{
		q(1, "simple", true, "correct", "SELECT 1 FROM t WHERE city = 'Rome'"),
		q(2, "simple", false, "wrong_result", "SELECT 1 FROM t WHERE state = 'Rome'"),
		q(3, "moderate", false, "syntax_error", "SELEC"),
		q(4, "moderate", true, "correct", "SELECT 1 FROM t WHERE a = 'x'"),
	}}
	// the second report in another order
	after := &Report{Questions: []QuestionResult{
		q(4, "moderate", false, "wrong_result", "SELECT 1 FROM t WHERE a = 'x' AND b = 'x'"),
		q(3, "moderate", true, "correct", "SELECT 2"),
		q(2, "simple", true, "correct", "SELECT 1 FROM t WHERE city = 'Rome'"),
		q(1, "simple", true, "correct", "SELECT 1 FROM t WHERE city = 'Rome'"),
	}}
	gold := map[int]string{1: "SELECT 1 FROM t WHERE city = 'Rome'", 2: "SELECT 1 FROM t WHERE city = 'rome'", 3: "SELECT 2", 4: "SELECT 1 FROM t WHERE a = 'x'"}
	d, err := Compare(before, after, []string{"simple", "moderate", "challenging"}, gold)
	if err != nil {
		t.Fatal(err)
	}
	want := []DiffLevel{
		{Level: "simple", Count: 2, BeforeEX: 50, AfterEX: 100, TurnRight: 1, TurnWrong: 0, P: 1},
		{Level: "moderate", Count: 2, BeforeEX: 50, AfterEX: 50, TurnRight: 1, TurnWrong: 1, P: 1},
	}
	if !reflect.DeepEqual(d.Levels, want) {
		t.Errorf("levels %+v, want %+v", d.Levels, want)
	}
	if tot := d.Total; tot.Count != 4 || tot.BeforeEX != 50 || tot.AfterEX != 75 || tot.TurnRight != 2 || tot.TurnWrong != 1 || math.Abs(tot.P-1) > 1e-12 {
		t.Errorf("total %+v", tot)
	}
	if want := map[string]int{"wrong_result -> correct": 1, "syntax_error -> correct": 1, "correct -> wrong_result": 1}; !reflect.DeepEqual(d.Transitions, want) {
		t.Errorf("transitions %v, want %v", d.Transitions, want)
	}
	// before: rome on state (misplaced); after: x on a and b (repeated, and
	// misplaced since b is not the gold's column)
	if want := (LiteralDiff{Compared: [2]int{3, 3}, Misplaced: [2]int{1, 1}, Repeated: [2]int{0, 1}}); *d.Literals != want {
		t.Errorf("literals %+v, want %+v", *d.Literals, want)
	}
	var buf bytes.Buffer
	if err := d.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "total") || !strings.Contains(buf.String(), "syntax_error -> correct") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
	// Reports of other questions are refused.
	after.Questions = after.Questions[1:]
	if _, err := Compare(before, after, nil, nil); err == nil || !strings.Contains(err.Error(), "question_id 4") {
		t.Errorf("a question missing from the second report: %v", err)
	}
	if _, err := Compare(&Report{}, after, nil, nil); err == nil {
		t.Error("a report without questions accepted")
	}
}
