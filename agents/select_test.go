package agents

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rec builds a scored record from a compact spec, one token per candidate
// (the first is the greedy decode, the others samples):
//
//	x        a query that failed
//	g<N>     a result with rows, in group N
//	e<N>     an empty result, in group N
//	s<N>     the same text as candidate N (its result and correctness)
//	F<j>>..  a fix of candidate j (then one of the above)
//	+        (suffix) correct
//	:<v..>   (suffix) the selection, condition, join verdicts: c, i or b
//	@<x>     (last suffix) the reviewer's log-probability x
func rec(spec string, matches ...Match) *Record {
	r := &Record{QuestionID: 1, DBID: "db", Final: StrategyVote, Matches: matches}
	for i, tok := range strings.Fields(spec) {
		c := Candidate{Source: SourceSample, From: -1, Same: -1, Scored: true, Tokens: 10, LogProb: -5}
		if i == 0 {
			c.Source = SourceGreedy
		}
		if strings.HasPrefix(tok, "F") {
			from, rest, _ := strings.Cut(tok[1:], ">")
			c.Source, c.From, tok = SourceFix, atoi(from), rest
		}
		tok, review, reviewed := strings.Cut(tok, "@")
		if reviewed {
			v, err := strconv.ParseFloat(review, 64)
			if err != nil {
				panic(err)
			}
			c.Review, c.ReviewTokens = v, 5
		}
		tok, verdicts, _ := strings.Cut(tok, ":")
		if strings.HasSuffix(tok, "+") {
			c.Correct, tok = true, strings.TrimSuffix(tok, "+")
		}
		switch tok[0] {
		case 'x':
			c.Exec = Execution{Error: "no such column", Class: "unknown_column", Group: -1}
		case 'g', 'e':
			c.Exec = Execution{OK: true, Group: atoi(tok[1:]), NRows: 3, Columns: []string{"a"}}
			if tok[0] == 'e' {
				c.Exec.NRows = 0
			}
		case 's':
			c.Same = atoi(tok[1:])
			s := r.Candidates[c.Same]
			c.Exec, c.Correct = s.Exec, s.Correct
		}
		c.SQL = fmt.Sprintf("q%d", i)
		if c.Same >= 0 {
			c.SQL = r.Candidates[c.Same].SQL
		}
		for k, v := range verdicts {
			c.Validations = append(c.Validations, Validation{Kind: ValidatorKinds[k],
				Verdict: map[rune]string{'c': VerdictCorrect, 'i': VerdictIncorrect, 'b': VerdictBad}[v]})
		}
		r.Candidates = append(r.Candidates, c)
	}
	return r
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// TestSelectStrategies checks each strategy's pick on records built by
// hand: -1 in want means no pick; a strategy absent from want must be
// absent from Selected.
func TestSelectStrategies(t *testing.T) {
	tests := []struct {
		name    string
		r       *Record
		final   string
		want    map[string]int
		entrant []int // TournamentEntrants(r, 4)
	}{
		{name: "no candidates", r: rec(""), want: map[string]int{"greedy": -1, "vote": -1}},
		{name: "all failed", r: rec("x x"), want: map[string]int{"greedy": 0, "vote": -1}},
		{name: "majority", r: rec("g0 g1+ s1"), want: map[string]int{"greedy": 0, "vote": 1}, entrant: []int{1, 0}},
		{name: "tie goes to the earliest group", r: rec("x g0 g1+"), want: map[string]int{"greedy": 0, "vote": 1}, entrant: []int{1, 2}},
		{name: "tie, greedy first", r: rec("g1 g0 g0 g1"), want: map[string]int{"greedy": 0, "vote": 0}, entrant: []int{0, 1}},
		{name: "empty result loses to fewer rows", r: rec("e0 e0 g1+"), want: map[string]int{"greedy": 0, "vote": 2}, entrant: []int{2}},
		{name: "all empty: the largest empty group", r: rec("e0 e1+ e1"), want: map[string]int{"greedy": 0, "vote": 1}, entrant: []int{1, 0}},
		{name: "validators outweigh one vote", r: rec("g0:iii s0 g1+:ccc"), want: map[string]int{"greedy": 0, "vote": 0, "validator_vote": 2},
			entrant: []int{0, 2}},
		{name: "a rejected result needs three times the votes: tie to the earliest", r: rec("g0:iii g0:iii g0:iii g1+:ccc"),
			want: map[string]int{"greedy": 0, "vote": 0, "validator_vote": 0}, entrant: []int{0, 3}},
		{name: "bad verdicts count against", r: rec("g0:cbb g1+:cci"), want: map[string]int{"greedy": 0, "vote": 0, "validator_vote": 1},
			entrant: []int{0, 1}},
		{name: "an unvalidated fix weighs as half approved", r: rec("g0:iic F0>g1+"), want: map[string]int{"greedy": 0, "vote": 0, "validator_vote": 1},
			entrant: []int{0, 1}},
		{name: "tournament winner", r: rec("g0 s0 g1+", Match{A: 0, B: 2, Winner: 2}),
			want: map[string]int{"greedy": 0, "vote": 0, "tournament": 2}, entrant: []int{0, 2}},
		{name: "tournament tie goes to the more voted", r: rec("g0 s0 s0 g1 s3 g2", Match{A: 0, B: 3, Winner: 3}, Match{A: 0, B: 5, Winner: 0}, Match{A: 3, B: 5, Winner: 5}),
			want: map[string]int{"greedy": 0, "vote": 0, "tournament": 0}, entrant: []int{0, 3, 5}},
		{name: "unreadable matches: the greedy decode", r: rec("g0 g1 s1", Match{A: 1, B: 0, Winner: -1}),
			want: map[string]int{"greedy": 0, "vote": 1, "tournament": 0}, entrant: []int{1, 0}},
		{name: "unreadable matches, greedy failed: the vote", r: rec("x g0 g1 s2", Match{A: 2, B: 1, Winner: -1}),
			want: map[string]int{"greedy": 0, "vote": 2, "tournament": 2}, entrant: []int{2, 1}},
		{name: "a selector ran, one result", r: rec("x g0+ s1"), final: StrategyTournament,
			want: map[string]int{"greedy": 0, "vote": 1, "tournament": 1}, entrant: []int{1}},
		{name: "a selector ran, no result", r: rec("x x"), final: StrategyTournament,
			want: map[string]int{"greedy": 0, "vote": -1, "tournament": -1}},
		{name: "review: the likeliest question", r: rec("g0@-9 s0@-9 g1+@-3 x"), want: map[string]int{"greedy": 0, "vote": 0, "review": 2},
			entrant: []int{0, 2}},
		{name: "review: rows before an empty result", r: rec("e0@-1 g1+@-5"), want: map[string]int{"greedy": 0, "vote": 1, "review": 1},
			entrant: []int{1}},
		{name: "review: only reviewed candidates", r: rec("g0 g1+@-7"), want: map[string]int{"greedy": 0, "vote": 0, "review": 1},
			entrant: []int{0, 1}},
		{name: "entrants: five results, the four most voted", r: rec("g0 g1 s1 g2 s3 s3 g3 g4 s7"),
			want: map[string]int{"greedy": 0, "vote": 3}, entrant: []int{3, 1, 7, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r
			if tt.final != "" {
				r.Final = tt.final
			}
			SelectAll(r, Selection{})
			if fmt.Sprint(r.Selected) != fmt.Sprint(tt.want) {
				t.Errorf("selected %v, want %v", r.Selected, tt.want)
			}
			if e := TournamentEntrants(r, 4); !slices.Equal(e, tt.entrant) && len(e)+len(tt.entrant) > 0 {
				t.Errorf("entrants %v, want %v", e, tt.entrant)
			}
			if want, ok := tt.want[r.Final]; ok && r.Choice() != want {
				t.Errorf("choice %d, want %s's %d", r.Choice(), r.Final, want)
			}
		})
	}
}

// TestChoiceWithoutFinal: a record whose final strategy was not computed
// (a ranker named but not given) answers with the greedy candidate.
func TestChoiceWithoutFinal(t *testing.T) {
	r := rec("g0 g1+ s1")
	r.Final = StrategyRanker
	SelectAll(r, Selection{})
	if _, ok := r.Selected[StrategyRanker]; ok || r.Choice() != 0 {
		t.Fatalf("selected %v, choice %d: want no ranker and the greedy candidate", r.Selected, r.Choice())
	}
}
