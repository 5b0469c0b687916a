package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Prompter writes a policy's prompts for benchmark questions, reading each
// database's schema once.
type Prompter struct {
	Format  Format
	cat     *prompt.Catalog
	builder *prompt.Builder

	mu   sync.Mutex
	fitB *prompt.Builder // text format, counting with fitC (Fit)
	fitC prompt.TokenCounter
}

// NewPrompter returns a prompter reading schemas through eng; dbRoot holds
// BIRD's database_description folders (may be empty).
func NewPrompter(eng sqlexec.Engine, dbRoot string, f Format) (*Prompter, error) {
	return newPrompter(eng, f, func(o *prompt.CatalogOptions) { o.DescriptionRoot = dbRoot })
}

// NewPrompterDirs is NewPrompter for databases that are not laid out under
// one root: descDir(db) names the folder holding db's
// database_description/ (the folder of its .sqlite file in BIRD's layout).
func NewPrompterDirs(eng sqlexec.Engine, descDir func(db string) string, f Format) (*Prompter, error) {
	return newPrompter(eng, f, func(o *prompt.CatalogOptions) { o.DescriptionDir = descDir })
}

func newPrompter(eng sqlexec.Engine, f Format, descriptions func(*prompt.CatalogOptions)) (*Prompter, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	opts := prompt.CatalogOptions{Examples: -1}
	if f.Kind == FormatText {
		// what `sqlrl data prepare` writes by default
		opts = prompt.CatalogOptions{}
	}
	if f.Kind == FormatText || f.Descriptions {
		descriptions(&opts)
	}
	if f.Values {
		opts.Values = prompt.DefaultValues
	}
	p := &Prompter{Format: f, cat: prompt.NewCatalog(eng, opts)}
	if f.Kind == FormatText {
		b, err := prompt.NewBuilder(p.cat, prompt.Options{Budget: 8192})
		if err != nil {
			return nil, err
		}
		p.builder = b
	}
	return p, nil
}

// Schema returns the schema of db.
func (p *Prompter) Schema(ctx context.Context, db string) (*prompt.Schema, error) {
	return p.cat.Schema(ctx, db)
}

// Prompt writes the prompt of ex.
func (p *Prompter) Prompt(ctx context.Context, ex dataset.Example) (string, error) {
	if p.Format.Kind == FormatText {
		pr, err := p.builder.Build(ctx, prompt.Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence})
		if err != nil {
			return "", err
		}
		return pr.Plain(), nil
	}
	s, err := p.cat.Schema(ctx, ex.DBID)
	if err != nil {
		return "", fmt.Errorf("question %d: %w", ex.QuestionID, err)
	}
	return p.Format.Compact(s, ex.Question, ex.Evidence), nil
}

// Guides returns a SampleOptions.Constrain that keeps the SQL written for
// exs[i] to the tables and columns of its database and to words
// (sqlparse.Guide; nil words: SQLite's keywords and common functions).
func (p *Prompter) Guides(ctx context.Context, exs []dataset.Example, words []string) (func(int) Constraint, error) {
	byDB := map[string]*sqlparse.Guide{}
	guides := make([]*sqlparse.Guide, len(exs))
	for i, ex := range exs {
		g, ok := byDB[ex.DBID]
		if !ok {
			s, err := p.cat.Schema(ctx, ex.DBID)
			if err != nil {
				return nil, fmt.Errorf("question %d: %w", ex.QuestionID, err)
			}
			tables := map[string][]string{}
			for _, t := range s.Tables {
				for _, c := range t.Columns {
					tables[t.Name] = append(tables[t.Name], c.Name)
				}
			}
			g = sqlparse.NewGuide(tables, words)
			byDB[ex.DBID] = g
		}
		guides[i] = g
	}
	return func(i int) Constraint { return guideState{guides[i].Start()} }, nil
}

// guideState is a sqlparse.GuideState as a CloneConstraint.
type guideState struct{ *sqlparse.GuideState }

func (g guideState) Clone() Constraint { return guideState{g.GuideState.Clone()} }

// SQLWords returns the SQL keywords and functions that the gold queries of
// exs use (sqlparse.Words), sorted, without repeats.
func (p *Prompter) SQLWords(ctx context.Context, exs []dataset.Example) ([]string, error) {
	names := map[string]map[string]bool{}
	seen := map[string]bool{}
	var out []string
	for _, ex := range exs {
		n, ok := names[ex.DBID]
		if !ok {
			s, err := p.cat.Schema(ctx, ex.DBID)
			if err != nil {
				return nil, fmt.Errorf("question %d: %w", ex.QuestionID, err)
			}
			n = map[string]bool{}
			for _, t := range s.Tables {
				n[strings.ToLower(t.Name)] = true
				for _, c := range t.Columns {
					n[strings.ToLower(c.Name)] = true
				}
			}
			names[ex.DBID] = n
		}
		for _, w := range sqlparse.Words(ex.SQL, func(w string) bool { return n[w] }) {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
