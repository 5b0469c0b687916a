// Package benchstats measures a Text2SQL benchmark the way a researcher
// judges one: what SQL its golds use, how big its schemas are, what shapes
// its answers have, whether its questions name the values they filter on,
// and how much of each dev split already occurs in train.
//
// A benchmark whose dev set repeats train's wordings, templates and SQL
// skeletons measures recall, not generalisation; a generator tuned without
// these figures drifts back to that. The report is therefore computed from
// the files alone (questions, tables file, databases), with no knowledge of
// how they were made, so that it measures sqlrl's own benchmark and BIRD or
// Spider by the same rules and can print them side by side.
package benchstats

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
)

// Options configure Measure.
type Options struct {
	// Splits restricts the report to these splits (names of <split>.json);
	// empty means every split found (train, dev, dev_* and any other with
	// its own <split>_databases/).
	Splits []string
	// Timeout bounds each gold query; 0 means DefaultTimeout.
	Timeout time.Duration
	// Workers run gold queries in parallel; 0 means GOMAXPROCS.
	Workers int
	// NoExec skips executing the golds (answer shapes are left empty).
	NoExec bool
	// Progress receives progress lines for long work; nil is silent.
	Progress io.Writer
	// Tokens counts a gold's tokens as a model would write it, its end
	// token included (the tokens a completion budget must hold); nil
	// leaves Group.GoldTokens out. A sampling budget below a tier's
	// lengths cuts its correct answers (train.RLOptions.MaxTokens).
	Tokens func(sql string) int
	// Budgets are completion budgets whose share of golds over them
	// GoldTokens reports (with Tokens).
	Budgets []int
}

// DefaultTimeout is the time a gold may run before it is counted as an
// error: BIRD's slowest golds take a few seconds on a loaded machine.
const DefaultTimeout = 30 * time.Second

// Report is the measurement of one benchmark directory.
type Report struct {
	// Name is the directory's base name, used as the column heading.
	Name   string   `json:"name"`
	Dir    string   `json:"dir"`
	Layout string   `json:"layout"`
	Splits []*Split `json:"splits"`
	// Warnings are problems that did not stop the report (a gold that
	// failed to run or parse), at most a few per split.
	Warnings []string `json:"warnings,omitempty"`
}

// Split is the measurement of one split: all questions together (All) and
// each difficulty tier on its own (Tiers, in the benchmark's order).
type Split struct {
	Name      string   `json:"name"`
	Questions int      `json:"questions"`
	Schema    Schema   `json:"schema"`
	All       *Group   `json:"all"`
	Tiers     []*Group `json:"tiers"`
	// Overlap compares this split with the benchmark's train split; nil for
	// train itself and for benchmarks without one.
	Overlap *Overlap `json:"overlap_with_train,omitempty"`
}

// Schema describes the databases a split's questions use, as its tables
// file describes them. Sizes are per database.
type Schema struct {
	Databases int `json:"databases"`
	// Domains are db_ids with a trailing _<number> removed (sqlrl's
	// generator names instances of one domain retail_1, retail_2, ...);
	// for BIRD and Spider they equal the databases.
	Domains int `json:"domains"`
	// Described is how many databases the tables file describes; the sizes
	// below are over those.
	Described   int    `json:"described"`
	Tables      MinMax `json:"tables"`
	Columns     MinMax `json:"columns"`
	ForeignKeys MinMax `json:"foreign_keys"`
}

// MinMax is a mean with its range.
type MinMax struct {
	Mean float64 `json:"mean"`
	Min  int     `json:"min"`
	Max  int     `json:"max"`
}

// Group is the measurement of a set of questions (a split or one tier).
type Group struct {
	// Tier is the difficulty ("simple", ...), "all" for the whole split,
	// or "unlabelled" for questions without one.
	Tier      string   `json:"tier"`
	Questions int      `json:"questions"`
	Features  Features `json:"features"`
	Answers   Answers  `json:"answers"`
	Literals  Literals `json:"literals"`
	// Skeletons is the number of distinct SQL skeletons (identifiers and
	// literals masked) and SkeletonsPerQuestion that over Questions: a
	// benchmark of few templates has few skeletons per question.
	Skeletons            int     `json:"skeletons"`
	SkeletonsPerQuestion float64 `json:"skeletons_per_question"`
	// GoldTokens are the golds' lengths in a model's tokens
	// (Options.Tokens); nil without a tokenizer.
	GoldTokens *TokenLengths `json:"gold_tokens,omitempty"`
}

// TokenLengths are the golds' lengths in tokens, end token included.
type TokenLengths struct {
	Median float64 `json:"median"`
	P90    int     `json:"p90"` // the smallest length at least 90% of golds fit
	Max    int     `json:"max"`
	// Over counts, for each of Options.Budgets in order, the golds
	// longer than it: answers a completion of that budget cannot hold.
	Over []BudgetCount `json:"over,omitempty"`
}

// BudgetCount is how many golds a completion budget cannot hold.
type BudgetCount struct {
	Budget int `json:"budget"`
	Golds  int `json:"golds"`
}

// Features are the SQL constructs of the golds, as shares of the questions
// (0..1) whose gold uses each, with means and maxima for counts.
type Features struct {
	// Parsed is how many golds were analysed; the shares are over them.
	Parsed int `json:"parsed"`

	Join          float64 `json:"join"`
	JoinsMean     float64 `json:"joins_mean"`
	JoinsMax      int     `json:"joins_max"`
	Subquery      float64 `json:"subquery"`
	SubqueriesMax int     `json:"subqueries_max"`
	SetOp         float64 `json:"set_op"`
	Window        float64 `json:"window"`
	Case          float64 `json:"case"`
	Cast          float64 `json:"cast"`
	Arithmetic    float64 `json:"arithmetic"`
	Aggregate     float64 `json:"aggregate"`
	GroupBy       float64 `json:"group_by"`
	Having        float64 `json:"having"`
	OrderLimit    float64 `json:"order_by_limit"`
	Distinct      float64 `json:"distinct"`
	NullTest      float64 `json:"null_test"`
	DateFunc      float64 `json:"date_function"`
	Like          float64 `json:"like"`
}

// Answers are the shapes of the golds' results.
type Answers struct {
	// Executed golds ran to their end; Errors did not (timeouts included).
	Executed   int     `json:"executed"`
	Errors     int     `json:"errors"`
	RowsMedian float64 `json:"rows_median"`
	RowsMax    int     `json:"rows_max"`
	Empty      float64 `json:"empty"`
	OneRow     float64 `json:"one_row"`
	// ColumnsMean is the mean number of result columns; OneColumn the
	// share with exactly one.
	ColumnsMean float64 `json:"columns_mean"`
	OneColumn   float64 `json:"one_column"`
}

// Literals measure whether the questions name what the golds filter on.
type Literals struct {
	// Strings is the number of non-empty string literals in the golds
	// (LIKE wildcards at their ends removed); InText how many of them occur
	// verbatim, ignoring case, in the question or its evidence.
	Strings  int     `json:"strings"`
	InText   int     `json:"in_text"`
	Coverage float64 `json:"coverage"`
	// InQuestion counts those in the question alone: BIRD's evidence often
	// spells the value out, its questions less often.
	InQuestion       int     `json:"in_question"`
	QuestionCoverage float64 `json:"question_coverage"`
	// WithEvidence is the share of questions with non-empty evidence.
	WithEvidence float64 `json:"with_evidence"`
	// EvidenceSQL is the share of questions whose evidence is (or holds) a
	// SQL fragment (see evidenceIsSQL for the rule); EvidenceKnowledge is
	// the share with evidence that has none (plain knowledge text).
	EvidenceSQL       float64 `json:"evidence_sql"`
	EvidenceKnowledge float64 `json:"evidence_knowledge"`
}

// Overlap compares a split with train.
type Overlap struct {
	// Databases is the share of the split's distinct db_ids that train
	// uses too; Domains the same for domains (see Schema.Domains).
	Databases float64 `json:"databases"`
	Domains   float64 `json:"domains"`
	// SchemaShapes is the share of the split's databases whose schema has
	// the shape of a train database with the names ignored (each table's
	// column count and foreign keys in and out): renamed copies of train
	// databases show here, not in Databases.
	SchemaShapes float64 `json:"schema_shapes"`
	// Wordings counts questions whose text, lower-cased and with white
	// space collapsed, is the text of a train question.
	Wordings      int     `json:"wordings"`
	WordingsShare float64 `json:"wordings_share"`
	// Skeletons counts questions whose gold's skeleton is a train gold's.
	Skeletons      int     `json:"skeletons"`
	SkeletonsShare float64 `json:"skeletons_share"`
	// Templates counts questions whose template (the text with numbers,
	// quoted strings, the gold's literal values and its database's table
	// and column names masked) is a train question's template;
	// DistinctTemplates and DistinctTemplatesInTrain count the templates
	// themselves.
	Templates                int     `json:"templates"`
	TemplatesShare           float64 `json:"templates_share"`
	DistinctTemplates        int     `json:"distinct_templates"`
	DistinctTemplatesInTrain int     `json:"distinct_templates_in_train"`
}

// Measure loads the benchmark in dir and measures every split.
func Measure(ctx context.Context, dir string, opts Options) (*Report, error) {
	splits, err := discover(dir, opts.Splits)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	rep := &Report{Name: filepath.Base(abs), Dir: dir, Layout: string(splits[0].bench.Layout)}
	schemas := make([]map[string]*dataset.Schema, len(splits))
	for i, ls := range splits {
		schemas[i] = ls.bench.Schemas
	}
	tm := newTemplater(schemas...)
	var train *measured
	all := make([]*measured, 0, len(splits))
	for _, ls := range splits {
		m, err := measureSplit(ctx, ls, tm, opts)
		if err != nil {
			return nil, err
		}
		rep.Warnings = append(rep.Warnings, m.warnings...)
		all = append(all, m)
		if ls.name == "train" {
			train = m
		}
	}
	for _, m := range all {
		if train != nil && m != train {
			m.split.Overlap = overlap(m, train)
		}
		rep.Splits = append(rep.Splits, m.split)
	}
	return rep, nil
}
