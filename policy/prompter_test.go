package policy

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// birdSample loads the bundled BIRD sample and a question on each of its
// two databases.
func birdSample(t *testing.T) (*dataset.Benchmark, sqlexec.Engine, map[string]dataset.Example) {
	t.Helper()
	b, err := dataset.Load("../datasets/bird-dev-sample", "dev")
	if err != nil {
		t.Fatal(err)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	t.Cleanup(func() { eng.Close() })
	exs := map[string]dataset.Example{}
	for _, ex := range b.Examples {
		// superhero 717: "superpowers of 3-D Man" (superhero, hero_power,
		// superpower); student_club 1339 names budget and event.
		if ex.QuestionID == 717 || ex.QuestionID == 1339 {
			exs[ex.DBID] = ex
		}
	}
	if len(exs) != 2 {
		t.Fatalf("questions 717 and 1339 not in the sample: %v", exs)
	}
	return b, eng, exs
}

// Fit prunes a prompt that does not fit until it does, keeps the tables
// the question names, cuts max tokens only when nothing else fits, and
// gives up with ErrNoFit when the most relevant table alone is too long.
func TestPrompterFit(t *testing.T) {
	b, eng, exs := birdSample(t)
	ctx := context.Background()
	const maxTok, margin = 128, DefaultFitMargin
	for _, format := range []Format{
		{Kind: FormatCompact, Descriptions: true},
		{Kind: FormatCompact, Types: true},
		{Kind: FormatText},
	} {
		pr, err := NewPrompter(eng, b.DBRoot, format)
		if err != nil {
			t.Fatal(err)
		}
		for db, ex := range exs {
			fo := FitOptions{Context: 1 << 20, MaxTokens: maxTok, Counter: prompt.Approx{}}
			full, err := pr.Fit(ctx, ex, fo)
			if err != nil {
				t.Fatal(err)
			}
			s, err := pr.Schema(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if len(full.Pruned) > 0 || full.Bare || full.MaxTokens != maxTok || len(full.Tables) != len(s.Tables) {
				t.Fatalf("%s %s: with room, pruned %v, bare %v, max tokens %d, %d tables", format.Kind, db, full.Pruned, full.Bare, full.MaxTokens, len(full.Tables))
			}
			named := prompt.Named(s, prompt.Input{Question: ex.Question, Evidence: ex.Evidence})
			if len(named) == 0 || len(named) == len(s.Tables) {
				t.Fatalf("%s: named tables %v: the question does not test pruning", db, named)
			}
			_, err = pr.Fit(ctx, ex, FitOptions{Context: 1, MaxTokens: 1, Counter: prompt.Approx{}})
			if !errors.Is(err, ErrNoFit) {
				t.Fatalf("%s %s: context 1: %v, want ErrNoFit", format.Kind, db, err)
			}
			// The smallest budget any prompt fits: one table, without
			// comments when the format has them.
			least := 1
			for ; least < full.Tokens; least++ {
				_, over, err := pr.fitOnce(ctx, s, prompt.Input{DBID: db, Question: ex.Question, Evidence: ex.Evidence}, pr.hasComments(), least, prompt.Approx{})
				if err != nil {
					t.Fatal(err)
				}
				if !over {
					break
				}
			}
			tests := []struct {
				name    string
				context int
				shrunk  bool // some table or the comments left out
				named   bool // every named table kept
				cut     bool // max tokens cut
				fail    bool
			}{
				{"one token short", full.Tokens + margin + maxTok - 1, true, true, false, false},
				{"half", full.Tokens/2 + margin + maxTok, true, false, false, false},
				{"no room for max tokens", least + margin + DefaultMinTokens + 10, true, false, true, false},
				{"no room for the minimum", least + margin + DefaultMinTokens - 1, true, false, false, true},
			}
			for _, tt := range tests {
				fo := FitOptions{Context: tt.context, MaxTokens: maxTok, Counter: prompt.Approx{}}
				f, err := pr.Fit(ctx, ex, fo)
				if tt.fail {
					if !errors.Is(err, ErrNoFit) {
						t.Errorf("%s %s %s: err %v, want ErrNoFit", format.Kind, db, tt.name, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s %s %s: %v", format.Kind, db, tt.name, err)
					continue
				}
				n := prompt.Approx{}.Count(f.Text)
				if n != f.Tokens || n+f.MaxTokens+margin > tt.context {
					t.Errorf("%s %s %s: %d prompt tokens (reported %d) + %d completion + %d margin > context %d",
						format.Kind, db, tt.name, n, f.Tokens, f.MaxTokens, margin, tt.context)
				}
				if got := len(f.Pruned) > 0 || f.Bare; got != tt.shrunk || len(f.Tables)+len(f.Pruned) != len(s.Tables) {
					t.Errorf("%s %s %s: shown %d, pruned %v, bare %v", format.Kind, db, tt.name, len(f.Tables), f.Pruned, f.Bare)
				}
				if got := f.MaxTokens < maxTok; got != tt.cut || f.MaxTokens < DefaultMinTokens {
					t.Errorf("%s %s %s: max tokens %d (asked %d)", format.Kind, db, tt.name, f.MaxTokens, maxTok)
				}
				for _, n := range named {
					if _, ok := f.Tables[n]; !ok && tt.named {
						t.Errorf("%s %s %s: named table %s pruned (shown %v)", format.Kind, db, tt.name, n, f.Tables)
					}
				}
				if len(f.Tables) == 0 || f.Bare && !pr.hasComments() {
					t.Errorf("%s %s %s: %d tables, bare %v", format.Kind, db, tt.name, len(f.Tables), f.Bare)
				}
				// The guide holds the SQL to the tables shown.
				g := FitGuides([]*Fitted{f}, nil)
				for _, tbl := range s.Tables {
					_, shown := f.Tables[tbl.Name]
					if ok := g(0).Allow("SELECT 1 FROM "+prompt.SQLite.QuoteIdent(tbl.Name), true); ok != shown {
						t.Errorf("%s %s %s: guide on table %s: allowed %v, shown %v", format.Kind, db, tt.name, tbl.Name, ok, shown)
					}
				}
			}
		}
	}
}

// Column comments go before a table the question names does, and only
// then: at every context size, a prompt keeps its comments unless dropping
// them keeps more of the named tables, and some size needs exactly that.
func TestPrompterFitDropsCommentsBeforeNamedTables(t *testing.T) {
	b, eng, exs := birdSample(t)
	ctx := context.Background()
	const maxTok = 64
	for _, format := range []Format{{Kind: FormatText}, {Kind: FormatCompact, Descriptions: true}} {
		pr, err := NewPrompter(eng, b.DBRoot, format)
		if err != nil {
			t.Fatal(err)
		}
		for db, ex := range exs {
			s, err := pr.Schema(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			in := prompt.Input{DBID: db, Question: ex.Question, Evidence: ex.Evidence}
			named := prompt.Named(s, in)
			bareHelped := false
			for size := 100; size <= 6000; size += 25 {
				f, err := pr.Fit(ctx, ex, FitOptions{Context: size, MaxTokens: maxTok, Counter: prompt.Approx{}})
				if err != nil || f.MaxTokens < maxTok {
					continue // too small for the budget proper
				}
				budget := size - DefaultFitMargin - maxTok
				withComments, over, err := pr.fitOnce(ctx, s, in, false, budget, prompt.Approx{})
				if err != nil {
					t.Fatal(err)
				}
				kept := countNamed(f, named)
				if f.Bare {
					if !over && countNamed(withComments, named) >= kept {
						t.Errorf("%s %s size %d: comments dropped though they fit with as many named tables (%d)", format.Kind, db, size, kept)
					}
					bareHelped = bareHelped || kept == len(named)
				} else if kept < len(named) {
					bare, over, err := pr.fitOnce(ctx, s, in, true, budget, prompt.Approx{})
					if err != nil {
						t.Fatal(err)
					}
					if !over && countNamed(bare, named) > kept {
						t.Errorf("%s %s size %d: named tables pruned (%d of %d kept) while comments kept", format.Kind, db, size, kept, len(named))
					}
				}
			}
			if !bareHelped {
				t.Errorf("%s %s: no context size where dropping comments kept the named tables %v", format.Kind, db, named)
			}
		}
	}
}
