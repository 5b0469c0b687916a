package export

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Output file names, stable: training scripts and docs refer to them.
const (
	FileSFT             = "sft.jsonl"
	FileHoldout         = "holdout.jsonl"
	FileHoldoutAug      = "holdout_aug.jsonl"
	FileTRLSFT          = "trl_sft.jsonl"
	FileTRLSFTChat      = "trl_sft_chat.jsonl"
	FileTRLSFTMessages  = "trl_sft_messages.jsonl"
	FileTRLGRPO         = "trl_grpo.jsonl"
	FileOpenRLHFPrompts = "openrlhf_prompts.jsonl"
	FileVerl            = "verl.jsonl"
	FileTRLKTO          = "trl_kto.jsonl"
	FileTRLKTOChat      = "trl_kto_chat.jsonl"
	FileOpenRLHFKTO     = "openrlhf_kto.jsonl"
	FileTRLDPO          = "trl_dpo.jsonl"
	FileTRLDPOChat      = "trl_dpo_chat.jsonl"
	FileManifest        = "manifest.json"
)

// Options configure Prepare.
type Options struct {
	// Dir is a benchmark directory in BIRD's (or Spider's) layout and
	// Split the split to read (default "train").
	Dir, Split string
	// Out is the output directory. It is replaced whole, atomically, once
	// every file is written (see PublishDir); it must be missing, empty or
	// a directory Prepare wrote.
	Out string
	// Seed drives the split and the augmentation.
	Seed uint64
	// SFTFraction is the SFT share (default 0.75).
	SFTFraction float64
	// Augment is the number of prompts per holdout question, the original
	// included (default 4); ShuffleColumns also shuffles columns.
	Augment        int
	ShuffleColumns bool
	// Prompt and Catalog configure the prompts; Catalog.DescriptionRoot
	// defaults to the benchmark's database root.
	Prompt  prompt.Options
	Catalog prompt.CatalogOptions
	// KeepGoldTables makes pruning keep the tables the gold SQL reads, so a
	// training prompt never lacks a table its answer needs.
	KeepGoldTables bool
	// Rollouts is an optional rollouts file (see Rollout); without it no
	// KTO or DPO set is written.
	Rollouts    string
	Preferences PreferenceOptions
	// DataSource is verl's data_source column (default "sqlrl").
	DataSource string
	// QueryTimeout bounds each schema query (default 60s).
	QueryTimeout time.Duration
	// Progress receives progress lines (nil: none).
	Progress io.Writer
}

// Manifest describes a prepared directory: where it came from, the options
// that shaped it, counts, and a checksum of every file.
type Manifest struct {
	Source         Source                    `json:"source"`
	Seed           uint64                    `json:"seed"`
	SFTFraction    float64                   `json:"sft_fraction"`
	Augment        int                       `json:"augment"`
	ShuffleColumns bool                      `json:"shuffle_columns"`
	Prompt         PromptInfo                `json:"prompt"`
	Counts         Counts                    `json:"counts"`
	Tiers          map[string]map[string]int `json:"tiers"`
	Strata         []dataset.Stratum         `json:"strata"`
	Rollouts       *RolloutStats             `json:"rollouts,omitempty"`
	Files          map[string]FileInfo       `json:"files"`
}

// Source names the benchmark a directory was prepared from.
type Source struct {
	Dir             string `json:"dir"`
	Split           string `json:"split"`
	Layout          string `json:"layout"`
	Questions       string `json:"questions"`
	QuestionsSHA256 string `json:"questions_sha256"`
}

// PromptInfo records the prompt options and what the budget did.
type PromptInfo struct {
	Dialect        string  `json:"dialect"`
	Budget         int     `json:"budget"`
	Counter        string  `json:"counter"`
	Examples       int     `json:"examples"`
	KeepGoldTables bool    `json:"keep_gold_tables"`
	Pruned         int     `json:"pruned"`
	OverBudget     int     `json:"over_budget"`
	MaxTokens      int     `json:"max_tokens"`
	MeanTokens     float64 `json:"mean_tokens"`
}

// Counts are the number of questions in each part.
type Counts struct {
	Questions  int `json:"questions"`
	SFT        int `json:"sft"`
	Holdout    int `json:"holdout"`
	HoldoutAug int `json:"holdout_aug"`
}

// FileInfo describes one output file.
type FileInfo struct {
	Records int    `json:"records"`
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"`
}

// Prepare runs the whole pipeline and writes Out. It is deterministic: the
// same benchmark files and options give byte-identical outputs.
func Prepare(ctx context.Context, opts Options) (*Manifest, error) {
	if opts.Split == "" {
		opts.Split = "train"
	}
	if opts.Out == "" {
		return nil, errors.New("prepare: no output directory")
	}
	if opts.DataSource == "" {
		opts.DataSource = "sqlrl"
	}
	if opts.QueryTimeout <= 0 {
		opts.QueryTimeout = time.Minute
	}
	aug := dataset.AugmentOptions{K: opts.Augment, Seed: opts.Seed, ShuffleColumns: opts.ShuffleColumns}
	if aug.K == 0 {
		aug.K = dataset.DefaultAugment
	}
	if aug.K < 1 {
		return nil, fmt.Errorf("prepare: augment %d: want at least 1 prompt per question", aug.K)
	}
	if opts.SFTFraction == 0 {
		opts.SFTFraction = dataset.DefaultSFTFraction
	}
	prog := newProgress(opts.Progress)

	bench, err := dataset.Load(opts.Dir, opts.Split)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	qsum, err := FileSHA256(bench.Questions)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	split, err := dataset.Split(bench.Examples, dataset.SplitOptions{SFTFraction: opts.SFTFraction, Seed: opts.Seed})
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", bench.Questions, err)
	}
	var rolls []Rollout
	if opts.Rollouts != "" {
		if rolls, err = ReadRollouts(ctx, opts.Rollouts); err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
	}

	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: bench.DBRoot, Limits: sqlexec.Limits{Timeout: opts.QueryTimeout}})
	defer eng.Close()
	catOpts := opts.Catalog
	if catOpts.DescriptionRoot == "" {
		catOpts.DescriptionRoot = bench.DBRoot
	}
	cat := prompt.NewCatalog(eng, catOpts)
	builder, err := prompt.NewBuilder(cat, opts.Prompt)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}

	info := PromptInfo{
		Dialect: string(orDefault(opts.Prompt.Dialect, prompt.SQLite)), Budget: opts.Prompt.Budget,
		Counter: counterName(opts.Prompt.Counter), Examples: catOpts.Examples, KeepGoldTables: opts.KeepGoldTables,
	}
	switch {
	case info.Examples == 0:
		info.Examples = prompt.DefaultExamples
	case info.Examples < 0:
		info.Examples = 0
	}
	var tokens int
	seenDB := map[string]bool{}
	build := func(ex dataset.Example) (*prompt.Prompt, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fail := func(err error) (*prompt.Prompt, error) {
			return nil, fmt.Errorf("%s: question %d: %w", bench.Questions, ex.QuestionID, err)
		}
		// Reading a schema (a query per column for example values) is the
		// slow step on a large database; say so when it is.
		began := time.Now()
		s, err := cat.Schema(ctx, ex.DBID)
		if err != nil {
			return fail(err)
		}
		if !seenDB[ex.DBID] {
			seenDB[ex.DBID] = true
			if d := time.Since(began); d > time.Second {
				prog.note("read schema of %s (%d tables) in %s", ex.DBID, len(s.Tables), d.Round(time.Millisecond))
			}
		}
		in := prompt.Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence}
		if opts.KeepGoldTables {
			in.Keep = GoldTables(ex.SQL, s)
		}
		p, err := builder.Build(ctx, in)
		if err != nil {
			return fail(err)
		}
		return p, nil
	}
	note := func(p *prompt.Prompt) {
		if len(p.Pruned) > 0 {
			info.Pruned++
		}
		if p.OverBudget {
			info.OverBudget++
		}
		info.MaxTokens = max(info.MaxTokens, p.Tokens)
		tokens += p.Tokens
		prog.tick()
	}

	prog.start("prompts", len(split.SFT)+len(split.Holdout))
	var sftRecs, holdRecs []Record
	for _, ex := range split.SFT {
		p, err := build(ex)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		note(p)
		sftRecs = append(sftRecs, newRecord(ex, p))
	}
	base := map[int]*prompt.Prompt{}
	for _, ex := range split.Holdout {
		p, err := build(ex)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		note(p)
		base[ex.QuestionID] = p
		holdRecs = append(holdRecs, newRecord(ex, p))
	}
	prog.done()

	augmented, err := dataset.Augment(split.Holdout, func(ex dataset.Example) ([]int, error) {
		return base[ex.QuestionID].ColumnCounts(), nil
	}, aug)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	prog.start("augmented prompts", len(augmented))
	augRecs := make([]Record, 0, len(augmented))
	byKey := map[promptKey]*Record{}
	for _, a := range augmented {
		p, err := builder.Reorder(base[a.QuestionID], a.Permutation.Tables, a.Permutation.Columns)
		if err != nil {
			return nil, fmt.Errorf("prepare: question %d variant %d: %w", a.QuestionID, a.Variant, err)
		}
		r := newRecord(a.Example, p)
		v, perm := a.Variant, a.Permutation
		r.Variant, r.Permutation = &v, &perm
		augRecs = append(augRecs, r)
		prog.tick()
	}
	for i := range augRecs {
		byKey[promptKey{augRecs[i].QuestionID, variantOf(&augRecs[i])}] = &augRecs[i]
	}
	prog.done()
	if n := len(split.SFT) + len(split.Holdout); n > 0 {
		info.MeanTokens = float64(int(float64(tokens)/float64(n)*10+0.5)) / 10
	}

	m := &Manifest{
		Source: Source{Dir: filepath.Clean(opts.Dir), Split: opts.Split, Layout: string(bench.Layout),
			Questions: filepath.Clean(bench.Questions), QuestionsSHA256: qsum},
		Seed: opts.Seed, SFTFraction: opts.SFTFraction, Augment: aug.K, ShuffleColumns: aug.ShuffleColumns,
		Prompt: info,
		Counts: Counts{Questions: len(bench.Examples), SFT: len(split.SFT), Holdout: len(split.Holdout), HoldoutAug: len(augRecs)},
		Tiers:  map[string]map[string]int{"sft": tiers(sftRecs), "holdout": tiers(holdRecs), "holdout_aug": tiers(augRecs)},
		Strata: split.Strata,
		Files:  map[string]FileInfo{},
	}

	err = PublishDir(ctx, opts.Out, outputFiles, func(dir string) error {
		w := &outWriter{dir: dir, prog: prog}
		w.add(FileSFT, len(sftRecs), func(i int) (any, error) { return sftRecs[i].rendered(), nil })
		w.add(FileHoldout, len(holdRecs), func(i int) (any, error) { return holdRecs[i].rendered(), nil })
		w.add(FileHoldoutAug, len(augRecs), func(i int) (any, error) { return augRecs[i].rendered(), nil })
		w.add(FileTRLSFT, len(sftRecs), func(i int) (any, error) { return sftRecord(&sftRecs[i]), nil })
		w.add(FileTRLSFTChat, len(sftRecs), func(i int) (any, error) { return sftChat(&sftRecs[i]), nil })
		w.add(FileTRLSFTMessages, len(sftRecs), func(i int) (any, error) { return sftMessages(&sftRecs[i]), nil })
		w.add(FileTRLGRPO, len(augRecs), func(i int) (any, error) { return promptOnly(&augRecs[i]), nil })
		w.add(FileOpenRLHFPrompts, len(augRecs), func(i int) (any, error) { return openRLHFPrompt(&augRecs[i]) })
		w.add(FileVerl, len(augRecs), func(i int) (any, error) { return verlPrompt(&augRecs[i], opts.DataSource), nil })

		if opts.Rollouts != "" {
			sftIDs := map[int]bool{}
			for _, ex := range split.SFT {
				sftIDs[ex.QuestionID] = true
			}
			kto, dpo, st, err := preferences(opts.Rollouts, rolls, byKey, sftIDs, opts.Preferences)
			if err != nil {
				return err
			}
			st.File = filepath.Clean(opts.Rollouts)
			if st.SHA256, err = FileSHA256(opts.Rollouts); err != nil {
				return err
			}
			m.Rollouts = &st
			w.add(FileTRLKTO, len(kto), func(i int) (any, error) {
				return TRLKTO{Prompt: kto[i].rec.p.Plain(), Completion: kto[i].completion, Label: kto[i].label}, nil
			})
			w.add(FileTRLKTOChat, len(kto), func(i int) (any, error) {
				return TRLKTOChat{Prompt: kto[i].rec.p.Messages(), Completion: assistant(kto[i].completion), Label: kto[i].label}, nil
			})
			w.add(FileOpenRLHFKTO, len(kto), func(i int) (any, error) {
				it := kto[i]
				return OpenRLHFKTO{Messages: it.rec.p.Conversation(it.completion), Text: it.rec.p.Plain() + it.completion, Label: it.label}, nil
			})
			w.add(FileTRLDPO, len(dpo), func(i int) (any, error) {
				return TRLDPO{Prompt: dpo[i].rec.p.Plain(), Chosen: dpo[i].chosen, Rejected: dpo[i].rejected}, nil
			})
			w.add(FileTRLDPOChat, len(dpo), func(i int) (any, error) {
				it := dpo[i]
				return TRLDPOChat{Prompt: it.rec.p.Messages(), Chosen: assistant(it.chosen), Rejected: assistant(it.rejected)}, nil
			})
		}
		if err := w.run(ctx, m.Files); err != nil {
			return err
		}
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		if err := writeSynced(filepath.Join(dir, FileManifest), append(data, '\n')); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return m, nil
}

// outputFiles are every name a prepared directory may hold.
var outputFiles = []string{
	FileSFT, FileHoldout, FileHoldoutAug, FileTRLSFT, FileTRLSFTChat, FileTRLSFTMessages,
	FileTRLGRPO, FileOpenRLHFPrompts, FileVerl, FileTRLKTO, FileTRLKTOChat, FileOpenRLHFKTO,
	FileTRLDPO, FileTRLDPOChat, FileManifest,
}

func orDefault(d, def prompt.Dialect) prompt.Dialect {
	if d == "" {
		return def
	}
	return d
}

func counterName(c prompt.TokenCounter) string {
	if c == nil {
		c = prompt.Approx{}
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", c), "*")
}

func tiers(recs []Record) map[string]int {
	out := map[string]int{}
	for i := range recs {
		d := recs[i].Difficulty
		if d == "" {
			d = "unknown"
		}
		out[d]++
	}
	return out
}

// GoldTables returns the tables of s that sql names, in schema order: the
// identifiers of the SQL (bare, "quoted", `quoted` or [quoted]; string
// literals skipped) that are table names. A column that shares a table's
// name makes that table count too, which errs on keeping.
func GoldTables(sql string, s *prompt.Schema) []string {
	idents := map[string]bool{}
	for _, t := range sqlparse.Tokenize(sql) {
		switch t.Kind {
		case sqlparse.KindIdentifier, sqlparse.KindKeyword:
			idents[strings.ToLower(t.Text)] = true
		case sqlparse.KindQuotedIdentifier:
			if len(t.Text) >= 2 {
				idents[strings.ToLower(t.Text[1:len(t.Text)-1])] = true
			}
		}
	}
	var out []string
	for _, t := range s.Tables {
		if idents[strings.ToLower(t.Name)] {
			out = append(out, t.Name)
		}
	}
	return out
}

// outWriter writes the output files into the staging directory, each with
// its SHA-256 computed on the way. Files are independent, so
// run writes them in parallel, one per CPU: JSON encoding of the prompt
// text is most of a run's time.
type outWriter struct {
	dir  string
	prog *progress
	jobs []writeJob
}

type writeJob struct {
	name string
	n    int
	rec  func(i int) (any, error)
}

func (w *outWriter) add(name string, n int, rec func(i int) (any, error)) {
	w.jobs = append(w.jobs, writeJob{name, n, rec})
}

// run writes the queued files, a few at a time (parallel.For: the first
// failure in queue order is returned and stops the rest), and records them
// in files.
func (w *outWriter) run(ctx context.Context, files map[string]FileInfo) error {
	jobs := w.jobs
	w.jobs = nil
	var mu sync.Mutex
	infos, err := parallel.Map(ctx, len(jobs), 0, func(ctx context.Context, i int) (FileInfo, error) {
		j := jobs[i]
		info, err := writeJSONL(ctx, filepath.Join(w.dir, j.name), j.n, j.rec)
		if err == nil {
			mu.Lock()
			w.prog.note("wrote %s: %d records, %.1f MB", j.name, info.Records, float64(info.Bytes)/1e6)
			mu.Unlock()
		}
		return info, err
	})
	if err != nil {
		return err
	}
	for i, j := range jobs {
		files[j.name] = infos[i]
	}
	return nil
}

// writeJSONL writes n records to path (in the staging directory, so no
// temporary name is needed) and fsyncs it before the directory is published.
func writeJSONL(ctx context.Context, path string, n int, rec func(i int) (any, error)) (FileInfo, error) {
	name := filepath.Base(path)
	f, err := os.Create(path)
	if err != nil {
		return FileInfo{}, fmt.Errorf("write %w", err)
	}
	fail := func(err error) (FileInfo, error) {
		f.Close()
		return FileInfo{}, err
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(cw, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range n {
		if i%1024 == 0 && ctx.Err() != nil {
			return fail(fmt.Errorf("write %s: %w", path, ctx.Err()))
		}
		if i == n/2 {
			if err := fault("write " + name); err != nil {
				return fail(err)
			}
		}
		v, err := rec(i)
		if err != nil {
			return fail(fmt.Errorf("write %s: record %d: %w", path, i, err))
		}
		if err := enc.Encode(v); err != nil {
			return fail(fmt.Errorf("write %s: record %d: %w", path, i, err))
		}
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("write %s: %w", path, err))
	}
	if err := fault("sync " + name); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("sync %s: %w", path, err))
	}
	if err := f.Close(); err != nil {
		return FileInfo{}, fmt.Errorf("write %s: %w", path, err)
	}
	return FileInfo{Records: n, Bytes: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeSynced writes data to path and fsyncs it.
func writeSynced(path string, data []byte) error {
	name := filepath.Base(path)
	if err := fault("write " + name); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fault("sync " + name); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// FileSHA256 is the hex SHA-256 of the file at path: what a manifest
// records of an input, so that a changed input is seen.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("checksum: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// progress prints a line every two seconds of long work, and one at the
// end of each stage, so a user sees a long run move.
type progress struct {
	w           io.Writer
	stage       string
	total, n    int
	began, last time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) start(stage string, total int) {
	p.stage, p.total, p.n = stage, total, 0
	p.began = time.Now()
	p.last = p.began
}

func (p *progress) tick() {
	p.n++
	if p.w == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 2*time.Second {
		p.last = now
		fmt.Fprintf(p.w, "data prepare: %s %d/%d (%.0f/s)\n", p.stage, p.n, p.total, float64(p.n)/now.Sub(p.began).Seconds())
	}
}

func (p *progress) done() {
	if p.w == nil {
		return
	}
	el := time.Since(p.began)
	rate := float64(p.n) / max(el.Seconds(), 1e-9)
	fmt.Fprintf(p.w, "data prepare: %s %d/%d in %s (%.0f/s)\n", p.stage, p.n, p.total, el.Round(time.Millisecond), rate)
}

func (p *progress) note(format string, args ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, "data prepare: "+format+"\n", args...)
	}
}
