package reward

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// stubScorer returns a scripted outcome and counts calls.
type stubScorer struct {
	out   eval.Outcome
	calls atomic.Int64
}

func (s *stubScorer) Score(context.Context, string, string, string) eval.Outcome {
	s.calls.Add(1)
	return s.out
}

var (
	outCorrect = eval.Outcome{Correct: true, Class: eval.ClassCorrect, SoftF1: 1}
	outWrong   = eval.Outcome{Class: eval.ClassWrong}
	outError   = eval.Outcome{Class: string(sqlexec.ClassSyntax), Error: "syntax error"}
)

func TestHybridRules(t *testing.T) {
	judge := FixedGrade(30) // 0.6 of full marks
	tests := []struct {
		name string
		f    Func
		out  eval.Outcome
		want float64
	}{
		{"gate correct", &Hybrid{Judge: judge, Rule: RuleGate, ErrorValue: -1}, outCorrect, 1},
		{"gate wrong", &Hybrid{Judge: judge, Rule: RuleGate, ErrorValue: -1}, outWrong, 0.6},
		{"gate error", &Hybrid{Judge: judge, Rule: RuleGate, ErrorValue: -1}, outError, -1},
		{"gate error 0", &Hybrid{Judge: judge, Rule: RuleGate}, outError, 0},
		{"gate asks on match", &Hybrid{Judge: judge, Rule: RuleGate, AskOnMatch: true}, outCorrect, 1},
		{"sum correct", &Hybrid{Judge: judge, Rule: RuleSum, WExec: 0.5, WJudge: 0.5}, outCorrect, 1},
		{"sum wrong", &Hybrid{Judge: judge, Rule: RuleSum, WExec: 0.5, WJudge: 0.5}, outWrong, 0.8},
		{"sum error", &Hybrid{Judge: judge, Rule: RuleSum, WExec: 0.5, WJudge: 0.5}, outError, 0.3},
		{"sum asks on match", &Hybrid{Judge: judge, Rule: RuleSum, WExec: 0.5, WJudge: 0.5, AskOnMatch: true}, outCorrect, 0.8},
		{"sum arctic wrong", &Hybrid{Judge: judge, Rule: RuleSum, Scheme: SchemeArctic, WExec: 1, WJudge: 1}, outWrong, 0.7},
		{"judge wrong", &JudgeReward{Judge: judge}, outWrong, 0.6},
		{"exec arctic wrong", &Exec{Scheme: SchemeArctic}, outWrong, 0.1},
	}
	for _, tt := range tests {
		sc := &stubScorer{out: tt.out}
		switch f := tt.f.(type) {
		case *Hybrid:
			f.Scorer = sc
		case *JudgeReward:
			f.Scorer = sc
		case *Exec:
			f.Scorer = sc
		}
		s, err := tt.f.Reward(context.Background(), Sample{DBID: "d", GoldSQL: "SELECT 1", Completion: "SELECT 2"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := s.Value - tt.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: value %v, want %v (components %v)", tt.name, s.Value, tt.want, s.Components)
		}
		if n := Normalize(tt.f, s.Value); n < 0 || n > 1 {
			t.Errorf("%s: normalized %v outside [0,1]", tt.name, n)
		}
	}
	// Issue 39: a judge that gives a wrong answer full marks must not make
	// it worth a match (1), under either rule; KTO's "desirable iff the
	// reward reaches the correct level" then still means a match.
	pleased := FixedGrade(MaxPoints)
	for _, tt := range []struct {
		name string
		h    *Hybrid
		out  eval.Outcome
		want float64
	}{
		{"gate wrong, judge 50", &Hybrid{Judge: pleased, Rule: RuleGate, ErrorValue: -1}, outWrong, 0.9},
		{"gate correct, judge 50", &Hybrid{Judge: pleased, Rule: RuleGate, ErrorValue: -1}, outCorrect, 1},
		{"sum wrong, judge 50", &Hybrid{Judge: pleased, Rule: RuleSum, WExec: 0.5, WJudge: 0.5}, outWrong, 0.95},
		{"sum error, judge 50", &Hybrid{Judge: pleased, Rule: RuleSum, WExec: 0.5, WJudge: 0.5}, outError, 0.45},
	} {
		tt.h.Scorer = &stubScorer{out: tt.out}
		s, err := tt.h.Reward(context.Background(), Sample{DBID: "d", GoldSQL: "SELECT 1", Completion: "SELECT 2"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := s.Value - tt.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: value %v, want %v (components %v)", tt.name, s.Value, tt.want, s.Components)
		}
		if desirable := ktoDesirable(s.Value); desirable != tt.out.Correct {
			t.Errorf("%s: value %v is desirable=%v at the correct level 1, want %v", tt.name, s.Value, desirable, tt.out.Correct)
		}
	}
	lo, hi := (&Hybrid{Rule: RuleGate, ErrorValue: -1}).Bounds()
	if lo != -1 || hi != 1 || Normalize(&Hybrid{Rule: RuleGate, ErrorValue: -1}, 0) != 0.5 {
		t.Errorf("gate bounds %v %v", lo, hi)
	}
}

// ktoDesirable is train.KTOLabels' rule at its default threshold, the
// correct level 1 (train cannot be imported here).
func ktoDesirable(v float64) bool { return v >= 1 }

// TestJudgeBlindExecutesNothing: the ablation's judge must not see, and so
// must not run, anything.
func TestJudgeBlindExecutesNothing(t *testing.T) {
	sc := &stubScorer{out: outCorrect}
	var seen View
	var mu sync.Mutex
	judge := judgeFunc(func(_ context.Context, v View) (Grade, error) {
		mu.Lock()
		seen = v
		mu.Unlock()
		return Grade{Points: 40}, nil
	})
	f, err := New(Config{Kind: KindJudgeBlind, Judge: judge}, sc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Reward(context.Background(), Sample{DBID: "d", GoldSQL: "SELECT 1", Completion: "```sql\nSELECT 2\n```"})
	if err != nil || s.Value != 0.8 || s.Class != "" {
		t.Fatalf("score %+v, %v", s, err)
	}
	if sc.calls.Load() != 0 || seen.Outcome != nil || seen.Pred != nil || seen.SQL != "SELECT 2" {
		t.Errorf("blind judge: %d executions, view %+v", sc.calls.Load(), seen)
	}
	// The analytic judge, blind, still gives the gold full marks.
	blind := &JudgeReward{Judge: Analytic{}, Blind: true}
	if s, _ := blind.Reward(context.Background(), Sample{GoldSQL: "SELECT a FROM t", Completion: "select a from t;"}); s.Value != 1 {
		t.Errorf("blind analytic on the gold: %v", s.Value)
	}
}

type judgeFunc func(context.Context, View) (Grade, error)

func (f judgeFunc) Grade(ctx context.Context, v View) (Grade, error) { return f(ctx, v) }

func TestNewConfig(t *testing.T) {
	sc := &stubScorer{out: outWrong}
	for _, k := range Kinds() {
		if _, err := New(Config{Kind: k, WExec: 1, WJudge: 1}, sc); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	for _, bad := range []Config{{Kind: "nope"}, {Kind: KindSum}, {Kind: KindSum, WExec: 1, Scheme: "x"}} {
		if _, err := New(bad, sc); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

func TestMemo(t *testing.T) {
	sc := &stubScorer{out: outWrong}
	m := &Memo{F: &Hybrid{Scorer: sc, Judge: Analytic{}, Rule: RuleGate}}
	ctx := context.Background()
	s := Sample{DBID: "d", GoldSQL: "SELECT a FROM t", Completion: "```sql\nSELECT b FROM t\n```"}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := m.Reward(ctx, s); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := sc.calls.Load(); n != 1 {
		t.Errorf("16 identical samples executed %d times, want 1", n)
	}
	// Same SQL in other packaging: still a hit.
	s.Completion = "SELECT b FROM t<|im_end|>"
	m.Reward(ctx, s)
	// Timeouts and nondeterministic SQL are not remembered.
	sc.out = eval.Outcome{Class: string(sqlexec.ClassTimeout)}
	s.Completion = "SELECT c FROM t"
	m.Reward(ctx, s)
	m.Reward(ctx, s)
	s.Completion = "SELECT random()"
	m.Reward(ctx, s)
	m.Reward(ctx, s)
	if n := sc.calls.Load(); n != 5 {
		t.Errorf("%d executions, want 5", n)
	}
	if c := m.Counters(); c["memo_hits"] != 16 || c["memo_misses"] != 3 {
		t.Errorf("counters %v", c)
	}
}

// TestMemoSkipsTransient: every outcome the machine decided is scored again
// on the next request, while a verdict on the SQL is kept; a gold that
// timed out is an ErrTransient (retry) as well as an ErrGold.
func TestMemoSkipsTransient(t *testing.T) {
	tests := []struct {
		name string
		out  eval.Outcome
		keep bool
	}{
		{"timeout", eval.Outcome{Class: string(sqlexec.ClassTimeout), Error: "query timed out waiting for a connection"}, false},
		{"canceled", eval.Outcome{Class: string(sqlexec.ClassCanceled), Error: "query canceled"}, false},
		{"file busy", eval.Outcome{Class: string(sqlexec.ClassRuntime), Error: "database is locked"}, false},
		{"out of memory", eval.Outcome{Class: string(sqlexec.ClassRuntime), Error: "out of memory"}, false},
		{"runtime error of the SQL", eval.Outcome{Class: string(sqlexec.ClassRuntime), Error: "integer overflow"}, true},
		{"syntax error", outError, true},
		{"wrong", outWrong, true},
	}
	for _, tt := range tests {
		sc := &stubScorer{out: tt.out}
		m := &Memo{F: &Exec{Scorer: sc, Scheme: SchemeMATS}}
		s := Sample{DBID: "d", GoldSQL: "SELECT a FROM t", SQL: "SELECT b FROM t"}
		for range 2 {
			if _, err := m.Reward(context.Background(), s); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		if want := map[bool]int64{true: 1, false: 2}[tt.keep]; sc.calls.Load() != want {
			t.Errorf("%s: scored %d times, want %d", tt.name, sc.calls.Load(), want)
		}
	}
	for _, tt := range []struct {
		goldClass string
		transient bool
	}{{"timeout", true}, {"no_database", true}, {"syntax_error", false}, {"write_attempt", false}} {
		sc := &stubScorer{out: eval.Outcome{Class: eval.ClassGoldError, GoldClass: tt.goldClass, Error: tt.goldClass + ": x"}}
		m := &Memo{F: &Exec{Scorer: sc, Scheme: SchemeEX}}
		s := Sample{DBID: "d", GoldSQL: "SELECT a FROM t", SQL: "SELECT b FROM t"}
		for range 2 {
			_, err := m.Reward(context.Background(), s)
			if !errors.Is(err, ErrGold) || errors.Is(err, ErrTransient) != tt.transient {
				t.Errorf("gold %s: err %v, want ErrGold, ErrTransient %v", tt.goldClass, err, tt.transient)
			}
		}
		if sc.calls.Load() != 2 {
			t.Errorf("gold %s: scored %d times, want 2 (errors are never kept)", tt.goldClass, sc.calls.Load())
		}
	}
}

func TestGenCacheBounded(t *testing.T) {
	var c genCache[int]
	c.max = 100
	for i := range 10_000 {
		c.put(string(rune(i)), i)
		if i == 5 {
			// Keep one key hot: it must survive.
			c.get(string(rune(5)))
		}
		if i%40 == 0 {
			c.get(string(rune(5)))
		}
	}
	if n := len(c.cur) + len(c.old); n > 100 {
		t.Errorf("%d entries, bound 100", n)
	}
	if v, ok := c.get(string(rune(5))); !ok || v != 5 {
		t.Error("hot key evicted")
	}
}

func itoa(i int) string {
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}
