package train

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/jsonl"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Example is one training or evaluation question. Prompt is set for text
// data (a TRL prompt/completion file), where SQL is the completion.
type Example struct {
	dataset.Example
	Prompt string `json:"prompt,omitempty"`
}

// Data is what SFT trains and evaluates on.
type Data struct {
	Format policy.Format
	Train  []Example
	// Dev questions, scored by execution during training when DevEngine
	// is set.
	Dev []Example
	// TrainPrompter and DevPrompter write prompts from schemas (nil for
	// text data, whose prompts are given).
	TrainPrompter, DevPrompter *policy.Prompter
	DevEngine                  sqlexec.Engine
	// SQLWords are the keywords and functions of the training SQL, which
	// the checkpoint keeps for guided decoding (policy.Info.SQLWords).
	SQLWords []string
	// Words are text values of the training databases (names, cities,
	// products...), a pool of real words for renaming schemas.
	Words []string
	// Notes describe the source, for the checkpoint's provenance.
	Notes map[string]string
	// Holdout is the share of the train split that LoadBench leaves out of
	// SFT (the same dataset.Split, seed and fraction as `sqlrl data
	// prepare`): the questions RL trains on in the OKTO recipe, unseen by
	// SFT so that their rewards do not saturate. Empty with SFTFraction 1.
	Holdout []Example
	// HoldoutAugment is the number of prompts per RL question (RLPrompts):
	// 1 keeps the original schema order, 4 is the recipe's x4 schema
	// shuffles, drawn as `data prepare` draws them (dataset.Augment with
	// AugmentSeed), so that variant v names the same prompt in both.
	HoldoutAugment int
	AugmentSeed    uint64
	// Task is what the examples teach: empty for text to SQL, or
	// policy.TaskReview for SQL to text (the reviewer: the prompt shows
	// the schema, the evidence and the gold query, the completion is the
	// question; policy.ReviewPrompt). Compact benchmark data only.
	Task    string
	engines []sqlexec.Engine
}

// Close releases the databases.
func (d *Data) Close() {
	for _, e := range d.engines {
		e.Close()
	}
}

// BenchOptions configure LoadBench.
type BenchOptions struct {
	// Dir is a benchmark in BIRD's layout.
	Dir string
	// TrainSplit (default "train") is split like `sqlrl data prepare` does
	// (dataset.Split with SFTFraction and Seed): SFT trains on the SFT
	// share, so that the RLHF holdout stays unseen.
	TrainSplit  string
	SFTFraction float64
	Seed        uint64
	// DevSplit (default "dev"; "-" for none) is evaluated during training;
	// DevHeldOut names no file but the holdout questions RL does not draw
	// from (RLFraction).
	DevSplit string
	// RLFraction, above SFTFraction, keeps part of the holdout from RL:
	// Holdout is then the holdout of the split at RLFraction (the same
	// seed), and the rest of SFTFraction's holdout, unseen by SFT and RL
	// alike, is the dev split DevHeldOut. Every question of the smaller
	// holdout must lie in the larger one (the split is stratified, so a
	// stratum's rounding may break this for some seeds): a cut that would
	// hand RL a question SFT trained on is refused. 0: RL on all of it.
	RLFraction float64
	Format     policy.Format
	// HoldoutAugment sets Data.HoldoutAugment (default 1).
	HoldoutAugment int
	// FinalTest lets DevSplit be the sealed test split (dataset.LoadTest),
	// which every other read refuses: set only for a final evaluation
	// whose reads are recorded (package experiment's study).
	FinalTest bool
	// General names a split of Dir, <General>.json, whose questions are
	// on databases that lie in the train split's folder (package
	// standin's stand-ins of databases one lacks): they join the train
	// split before it is cut, so SFT trains on its share of them, and
	// the holdout drops them, since RL's execution reward needs a real
	// database's rows. Their question ids must not be train's, nor their
	// databases train's own.
	General string
}

// LoadBench reads a benchmark for SFT.
func LoadBench(o BenchOptions) (*Data, error) {
	b, general, sp, err := cutBench(&o)
	if err != nil {
		return nil, err
	}
	if o.HoldoutAugment == 0 {
		o.HoldoutAugment = 1
	}
	if o.HoldoutAugment < 1 {
		return nil, fmt.Errorf("train: holdout augmentation %d (want >= 1)", o.HoldoutAugment)
	}
	d := &Data{Format: o.Format, HoldoutAugment: o.HoldoutAugment, AugmentSeed: o.Seed, Notes: map[string]string{
		"data": o.Dir, "train_split": o.TrainSplit, "sft_fraction": fmt.Sprint(o.SFTFraction), "split_seed": fmt.Sprint(o.Seed),
	}}
	pool, heldOut := sp.Holdout, []dataset.Example(nil)
	if o.RLFraction > 0 {
		if pool, heldOut, err = dataset.CutPool(b.Examples, sp.Holdout, dataset.Parts{SFTFraction: o.SFTFraction, RLFraction: o.RLFraction, Seed: o.Seed}); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		d.Notes["rl_fraction"] = fmt.Sprint(o.RLFraction)
	}
	if len(general) > 0 {
		isGeneral := map[string]bool{}
		for _, ex := range general {
			isGeneral[ex.DBID] = true
		}
		drop := func(ex dataset.Example) bool { return isGeneral[ex.DBID] }
		pool, heldOut = slices.DeleteFunc(pool, drop), slices.DeleteFunc(heldOut, drop)
		d.Notes["general"] = generalNote(o.General, len(general))
	}
	for _, ex := range pool {
		d.Holdout = append(d.Holdout, Example{Example: ex})
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot, Limits: sqlexec.Limits{Timeout: time.Minute}})
	d.engines = append(d.engines, eng)
	if d.TrainPrompter, err = policy.NewPrompter(eng, b.DBRoot, o.Format); err != nil {
		return nil, err
	}
	for _, ex := range sp.SFT {
		d.Train = append(d.Train, Example{Example: ex})
	}
	if d.Words, err = dbWords(eng, d.TrainPrompter, sp.SFT); err != nil {
		return nil, err
	}
	if d.SQLWords, err = d.TrainPrompter.SQLWords(context.Background(), sp.SFT); err != nil {
		return nil, err
	}
	if o.DevSplit == DevHeldOut {
		if err := d.useHeldOut(b.DBRoot, heldOut); err != nil {
			d.Close()
			return nil, err
		}
	} else if o.DevSplit != "-" {
		load := dataset.Load
		if o.FinalTest && o.DevSplit == dataset.SplitTest {
			load = func(dir, _ string) (*dataset.Benchmark, error) { return dataset.LoadTest(dir) }
		}
		db, err := load(o.Dir, o.DevSplit)
		if err != nil {
			return nil, err
		}
		deng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: db.DBRoot, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}})
		d.engines = append(d.engines, deng)
		d.DevEngine = deng
		if d.DevPrompter, err = policy.NewPrompter(deng, db.DBRoot, o.Format); err != nil {
			return nil, err
		}
		for _, ex := range db.Examples {
			d.Dev = append(d.Dev, Example{Example: ex})
		}
		d.Notes["dev_split"] = o.DevSplit
	}
	return d, nil
}

// cutBench sets o's defaults, reads the train split and o.General's
// questions and cuts them into SFT's share and the holdout: the one cut
// that LoadBench and GeneralHeldOut share.
func cutBench(o *BenchOptions) (*dataset.Benchmark, []dataset.Example, *dataset.SplitResult, error) {
	if o.TrainSplit == "" {
		o.TrainSplit = "train"
	}
	if o.DevSplit == "" {
		o.DevSplit = "dev"
	}
	if o.SFTFraction == 0 {
		o.SFTFraction = dataset.DefaultSFTFraction
	}
	b, err := dataset.Load(o.Dir, o.TrainSplit)
	if err != nil {
		return nil, nil, nil, err
	}
	general, err := loadGeneral(*o, b)
	if err != nil {
		return nil, nil, nil, err
	}
	b.Examples = append(b.Examples, general...)
	var sp *dataset.SplitResult
	switch {
	case o.SFTFraction == 1:
		// SFT on everything (the SFT-100 study): no holdout. dataset.Split
		// wants a fraction below 1; its SFT part is in question_id order.
		sp = &dataset.SplitResult{SFT: slices.SortedStableFunc(slices.Values(b.Examples), func(a, b dataset.Example) int {
			return cmp.Compare(a.QuestionID, b.QuestionID)
		})}
	case o.SFTFraction > 0 && o.SFTFraction < 1:
		if sp, err = dataset.Split(b.Examples, dataset.SplitOptions{SFTFraction: o.SFTFraction, Seed: o.Seed}); err != nil {
			return nil, nil, nil, err
		}
	default:
		return nil, nil, nil, fmt.Errorf("train: SFT fraction %v (want in (0, 1])", o.SFTFraction)
	}
	return b, general, sp, nil
}

// GeneralHeldOut returns o.General's questions that o's cut keeps from
// SFT, with their own ids: human questions on other databases that
// neither SFT nor RL trains on (RL's holdout drops them), so a split for
// choosing settings on human questions. In question_id order.
func GeneralHeldOut(o BenchOptions) ([]dataset.Example, error) {
	if o.General == "" {
		return nil, errors.New("train: no general questions to hold out (General is empty)")
	}
	_, _, sp, err := cutBench(&o)
	if err != nil {
		return nil, err
	}
	var held []dataset.Example
	for _, ex := range sp.Holdout {
		if ex.QuestionID >= GeneralIDBase {
			ex.QuestionID -= GeneralIDBase
			held = append(held, ex)
		}
	}
	slices.SortFunc(held, func(a, b dataset.Example) int { return cmp.Compare(a.QuestionID, b.QuestionID) })
	return held, nil
}

// StartGeneralHeldOut is GeneralHeldOut for checkpoint (or run) ck, cut
// as its notes record it (StartSplit's fraction and seed, its train and
// general splits), over benchmark dir.
func StartGeneralHeldOut(ck, dir string) ([]dataset.Example, error) {
	ck, err := policy.Resolve(ck)
	if err != nil {
		return nil, err
	}
	info, err := policy.ReadInfo(ck)
	if err != nil {
		return nil, fmt.Errorf("train: general holdout: %w", err)
	}
	notes := info.Notes
	general := generalSplitOf(notes["general"])
	if general == "" {
		return nil, fmt.Errorf("train: general holdout: %s trained on no general questions (-general)", ck)
	}
	fraction, seed, _, err := StartSplit(notes, 0, false, 0, false)
	if err != nil {
		return nil, err
	}
	return GeneralHeldOut(BenchOptions{Dir: dir, TrainSplit: notes["train_split"], SFTFraction: fraction, Seed: seed, DevSplit: "-", General: general})
}

// generalNote is a checkpoint's "general" note: the general split's name
// and size; generalSplitOf reads the name back.
func generalNote(split string, n int) string { return fmt.Sprintf("%s (%d questions)", split, n) }

func generalSplitOf(note string) string {
	name, _, _ := strings.Cut(note, " (")
	return name
}

// GeneralIDBase is added to a general question's question_id when it
// joins the train split, so that ids stay unique (train's must be below).
const GeneralIDBase = 1_000_000

// general reports whether ex came from the general split (its id moved
// by GeneralIDBase).
func (ex *Example) general() bool { return ex.QuestionID >= GeneralIDBase }

// loadGeneral reads o.General's questions, checked apart from train's:
// their ids moved by GeneralIDBase, their databases not train's own and
// present in train's folder.
func loadGeneral(o BenchOptions, b *dataset.Benchmark) ([]dataset.Example, error) {
	if o.General == "" {
		return nil, nil
	}
	path := filepath.Join(o.Dir, o.General+".json")
	g, err := dataset.LoadQuestions(path)
	if err != nil {
		return nil, fmt.Errorf("train: general questions: %w", err)
	}
	ids, dbs, found := map[int]bool{}, map[string]bool{}, map[string]bool{}
	for _, ex := range b.Examples {
		ids[ex.QuestionID], dbs[ex.DBID] = true, true
	}
	for id := range ids {
		if id >= GeneralIDBase {
			return nil, fmt.Errorf("train: %s split: question_id %d: with general questions (-general), train's ids must be below %d", o.TrainSplit, id, GeneralIDBase)
		}
	}
	for i := range g.Examples {
		ex := &g.Examples[i]
		switch {
		case ex.QuestionID < 0 || ex.QuestionID >= GeneralIDBase:
			return nil, fmt.Errorf("train: %s: question_id %d: general questions' ids must lie in [0, %d)", path, ex.QuestionID, GeneralIDBase)
		case dbs[ex.DBID]:
			return nil, fmt.Errorf("train: %s: question %d is on %s, a database of the %s split", path, ex.QuestionID, ex.DBID, o.TrainSplit)
		}
		if !found[ex.DBID] {
			if _, err := os.Stat(filepath.Join(b.DBRoot, ex.DBID, ex.DBID+".sqlite")); err != nil {
				return nil, fmt.Errorf("train: %s: question %d: its database: %w", path, ex.QuestionID, err)
			}
			found[ex.DBID] = true
		}
		ex.QuestionID += GeneralIDBase
	}
	return g.Examples, nil
}

// LoadTRL reads a TRL prompt/completion SFT file (trl_sft.jsonl): text
// data, trained as given, without renaming or dev evaluation.
func LoadTRL(path string) (*Data, error) {
	d := &Data{Format: policy.Format{Kind: policy.FormatText}, Notes: map[string]string{"data": path}}
	err := jsonl.ReadFile(path, func(line int, b []byte) error {
		var r struct {
			Prompt     *string `json:"prompt"`
			Completion *string `json:"completion"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		if r.Prompt == nil || r.Completion == nil {
			return errors.New("want TRL's prompt and completion fields")
		}
		d.Train = append(d.Train, Example{Example: dataset.Example{QuestionID: line}, Prompt: *r.Prompt})
		d.Train[len(d.Train)-1].SQL = *r.Completion
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Train) == 0 {
		return nil, fmt.Errorf("%s: no records", path)
	}
	return d, nil
}

// render writes the prompt and completion of a training example; with a
// renamer and rng, the schema's names are replaced at random (probability
// p per identifier) in the prompt, the evidence's code and the SQL, or,
// with a renamer of words (renameByText), the words of the names wherever
// they occur (probability p per word).
func (d *Data) render(ctx context.Context, ex *Example, rn *renamer, p float64, rng *rand.Rand) (string, string, error) {
	return d.renderFit(ctx, ex, rn, p, rng, nil)
}

// Fitter says how many tokens a prompt may take beside its completion,
// counting them as the model does.
type Fitter struct {
	Counter prompt.TokenCounter
	// Room is the prompt's budget in tokens given its completion.
	Room func(completion string) int
}

// renderFit is render with the prompt fitted to fit.Room (nil: not
// fitted): a schema too large for the context keeps the tables the gold
// reads first, then those package prompt's pruning ranks most relevant,
// without column comments if even that does not fit, so that a large
// database trains on the kind of prompt evaluation shows
// (policy.Prompter.Fit prunes the same way, by the question alone)
// instead of being skipped.
func (d *Data) renderFit(ctx context.Context, ex *Example, rn *renamer, p float64, rng *rand.Rand, fit *Fitter) (string, string, error) {
	if d.Task != policy.TaskReview {
		pr, sql, _, err := d.renderQuery(ctx, ex, rn, p, rng, fit)
		return pr, sql, err
	}
	if ex.Prompt != "" || d.TrainPrompter == nil {
		return "", "", fmt.Errorf("train: question %d: a reviewer trains on a benchmark's questions, not on text prompts", ex.QuestionID)
	}
	// The query and the question trade places; they are renamed together,
	// and the schema is fitted with the query's room, the question's
	// being about the size of the line it leaves.
	pr, sql, q, err := d.renderQuery(ctx, ex, rn, p, rng, fit)
	if err != nil {
		return "", "", err
	}
	rp, err := policy.ReviewPrompt(pr, sql)
	if err != nil {
		return "", "", fmt.Errorf("train: question %d: %w", ex.QuestionID, err)
	}
	return rp, policy.ReviewCompletion(q), nil
}

// renderQuery is renderFit for text to SQL; it also returns the question
// as the prompt shows it (renamed with the schema under RenameText).
func (d *Data) renderQuery(ctx context.Context, ex *Example, rn *renamer, p float64, rng *rand.Rand, fit *Fitter) (string, string, string, error) {
	if ex.Prompt != "" || d.TrainPrompter == nil {
		return ex.Prompt, ex.SQL, ex.Question, nil
	}
	s, err := d.TrainPrompter.Schema(ctx, ex.DBID)
	if err != nil {
		return "", "", "", err
	}
	sql, q, ev := ex.SQL, ex.Question, ex.Evidence
	if rn != nil && rng != nil && p > 0 {
		var m map[string]string
		s, m, q, ev = rn.rename(s, q, ev, p, rng)
		sql = renameSQL(sql, m)
	}
	text := d.Format.Compact(s, q, ev)
	if fit == nil {
		return text, sql, q, nil
	}
	budget := fit.Room(sql)
	if fit.Counter.Count(text) <= budget {
		return text, sql, q, nil
	}
	var keep []string
	if sh, err := sqlparse.Analyze(sql); err == nil {
		keep = sh.Tables
	}
	in := prompt.Input{DBID: ex.DBID, Question: q, Evidence: ev, Keep: keep}
	for _, sc := range []*prompt.Schema{s, s.Bare()} {
		f := prompt.Fit(sc, in, budget, fit.Counter, func(ts []*prompt.Table) string {
			return d.Format.Compact(&prompt.Schema{DBID: sc.DBID, Tables: ts}, q, ev)
		})
		if !f.OverBudget && f.Tokens <= budget {
			return f.Text, sql, q, nil
		}
	}
	return text, sql, q, nil // too long even so: the caller skips it
}

// dbWords collects up to 200 distinct values of every text column of the
// databases the examples use.
func dbWords(eng sqlexec.Engine, p *policy.Prompter, exs []dataset.Example) ([]string, error) {
	ctx := context.Background()
	seen := map[string]bool{}
	var out []string
	for _, ex := range exs {
		if seen["db:"+ex.DBID] {
			continue
		}
		seen["db:"+ex.DBID] = true
		s, err := p.Schema(ctx, ex.DBID)
		if err != nil {
			return nil, err
		}
		for _, t := range s.Tables {
			for _, c := range t.Columns {
				if !strings.Contains(strings.ToLower(c.Type), "text") && !strings.Contains(strings.ToLower(c.Type), "char") {
					continue
				}
				q := fmt.Sprintf(`SELECT DISTINCT "%s" FROM "%s" LIMIT 200`, c.Name, t.Name)
				res, err := eng.Query(ctx, ex.DBID, q)
				if err != nil {
					continue
				}
				for _, row := range res.Rows {
					if len(row) > 0 && row[0].S != "" {
						out = append(out, row[0].S)
					}
				}
			}
		}
	}
	return out, nil
}

// DevHeldOut is the dev split of the holdout questions that RL, cutting
// its pool at a larger SFT share (BenchOptions.RLFraction), never draws:
// unseen by SFT and RL, on the databases both trained on. It measures what
// RL learnt about those databases apart from the questions it was
// rewarded on, where a benchmark's dev databases (renamed, or of other
// domains) measure transfer.
const DevHeldOut = dataset.PartHeldOut

// useHeldOut makes the held-out questions d's dev set, scored over the
// training databases (dbRoot) with BIRD's pair limit.
func (d *Data) useHeldOut(dbRoot string, heldOut []dataset.Example) error {
	if len(heldOut) == 0 {
		return fmt.Errorf("train: dev split %q: no holdout question is kept from RL (set an RL share between the SFT share and 1)", DevHeldOut)
	}
	for _, ex := range heldOut {
		d.Dev = append(d.Dev, Example{Example: ex})
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: dbRoot, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}})
	d.engines = append(d.engines, eng)
	d.DevEngine = eng
	var err error
	if d.DevPrompter, err = policy.NewPrompter(eng, dbRoot, d.Format); err != nil {
		return err
	}
	d.Notes["dev_split"] = DevHeldOut
	return nil
}

// StartSplit returns how an RL run must cut the train split its start
// trained on: the SFT fraction and split seed of the start's notes
// (LoadBench's). A fraction or seed given may repeat them; a larger
// fraction is returned as pool (BenchOptions.RLFraction): RL then draws
// from that part of the start's holdout, the rest unseen by both. A
// smaller fraction or another seed is refused: the holdout would hold
// questions SFT trained on. Without notes, the given values or the
// defaults are taken.
func StartSplit(notes map[string]string, frac float64, fracSet bool, seed uint64, seedSet bool) (fraction float64, splitSeed uint64, pool float64, err error) {
	fraction, splitSeed = dataset.DefaultSFTFraction, 1
	if v, ok := notes["sft_fraction"]; ok {
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			fraction = x
		}
		switch {
		case fracSet && frac < fraction:
			return 0, 0, 0, fmt.Errorf("SFT fraction %v: the start trained on a %v share; RL must not cut a holdout with questions SFT trained on", frac, fraction)
		case fracSet && frac > fraction && fraction < 1:
			pool = frac
		}
	} else if fracSet {
		fraction = frac
	}
	if v, ok := notes["split_seed"]; ok {
		if x, err := strconv.ParseUint(v, 10, 64); err == nil {
			splitSeed = x
		}
		if seedSet && seed != splitSeed {
			return 0, 0, 0, fmt.Errorf("split seed %d: the start's is %d; RL must cut the split as SFT did", seed, splitSeed)
		}
	} else if seedSet {
		splitSeed = seed
	}
	return fraction, splitSeed, pool, nil
}

// SameBench reports whether recorded, a benchmark path as a run recorded
// it (relative to wherever that run was started), may name dir: the same
// directory from here, or, for a relative record, a path dir ends with.
func SameBench(recorded, dir string) bool {
	if filepath.Clean(recorded) == filepath.Clean(dir) {
		return true
	}
	if a, err := os.Stat(recorded); err == nil {
		if b, err := os.Stat(dir); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	if filepath.IsAbs(recorded) {
		return false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	rel := string(filepath.Separator) + filepath.Clean(recorded)
	return strings.HasSuffix(abs, rel)
}
