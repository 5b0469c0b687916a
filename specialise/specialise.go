// Package specialise takes a user's SQLite databases to a model that
// `sqlrl serve` loads, in one resumable run: questions generated over the
// databases (package dbgen), SFT on 75% of their train split, online KTO
// with the execution reward on the other 25% (package experiment's
// flywheel, whose runs are cached by config), a ready serve.json
// (askserver.StarterConfig) and a before/after report on the synthetic
// dev split; with a file of the user's own questions, EX on those too,
// read once per run and counted.
package specialise

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/datasets/birdtrain"
	"github.com/sqlrl/sqlrl/dbgen"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/standin"
)

// Files and folders under Options.Out.
const (
	DataDir     = "data"          // the generated benchmark (BIRD layout)
	StampFile   = "generate.json" // what DataDir was generated from
	FlywheelDir = "flywheel"      // experiment runs (SFT, KTO, evaluations)
	ServeFile   = "serve.json"    // `sqlrl serve -config` loads it
	HumanFile   = "human-test.json"
	DevVoteFile = "dev-vote.json"
	ReadsFile   = experiment.TestReadsFile
	ReportMD    = "report.md"
	ReportJSON  = "report.json"
	// GeneralSplit holds Options.General's questions in DataDir; their
	// stand-in databases lie in train_databases.
	GeneralSplit = "general"
	// DefaultN questions a database: chosen on the synthetic dev split
	// over 3,000 (docs/dbgen.md, "More generated questions").
	DefaultN     = 6000
	DefaultShare = 0.05
)

// Options configure Run.
type Options struct {
	// DBs are the SQLite files or postgres:// DSNs to specialise to (at
	// least one). A DSN's readable tables are snapshotted into a SQLite
	// file under Out/snapshots (Snapshot says which schema and how many
	// rows), which is then generated over, trained on and served.
	DBs      []string
	Snapshot dbgen.SnapshotOptions
	// Out holds everything the run writes; running again with the same
	// Out continues where it stopped.
	Out string
	// Descriptions is an optional dbgen descriptions file.
	Descriptions string
	// General adds human-written questions over other databases to SFT
	// (train.Split.General): birdtrain.Name for BIRD's train questions
	// built in, or a BIRD-layout question file; each question's database
	// is a stand-in built from the golds (package standin). Empty: none.
	General string
	// GeneralMax, when positive, keeps at most that many of General's
	// questions (on databases not named as the user's), chosen by Seed:
	// SFT's steps grow with them, and the whole of BIRD's train questions
	// do not fit one database into half an hour (docs/dbgen.md, "Time").
	GeneralMax int
	// TokenizerOwn, with General, trains the tokenizer on the generated
	// questions alone (train sft -tokenizer-own): the general questions'
	// words do not take the vocabulary the user's schema is cut with.
	TokenizerOwn bool
	// GeneralEach, with General, trains each SFT epoch on all the
	// generated questions and the next this many of a seeded shuffle of
	// the general ones (train sft -general-each; 0: all every epoch).
	GeneralEach int
	// Questions is an optional file of the user's own questions with
	// gold SQL in BIRD's layout (the human test), over databases named as
	// the -db files' base names.
	Questions string
	// N questions are generated per database (DevShare and TestShare of
	// them for dev and the sealed test split); Seed drives generation
	// and training.
	N                   int
	DevShare, TestShare float64
	Seed                uint64
	// Preset is the flywheel's settings (Preset()).
	Preset experiment.Preset
	// Vote is how the served model answers: by a vote over its greedy
	// decode and samples (DefaultVote), or greedily when off. The report
	// scores the served model both ways on the synthetic dev split and,
	// with Questions, on the human test; serve.json answers by it.
	Vote consensus.Sampling
	// Force regenerates the questions when Out holds ones generated from
	// other databases or settings.
	Force   bool
	Threads int
	// Progress receives progress bars and stage lines (nil: none).
	Progress io.Writer
	Command  string
	// Trainer runs the flywheel's runs (default experiment.InProcess).
	Trainer experiment.Trainer
}

// Preset is the command's default settings: the flywheel's small model
// and KTO, sized for a BIRD-sized database on 2 cores (docs/dbgen.md):
// SFT without renaming (the served schema is the one trained on), KTO
// on all of the holdout with the execution reward and without renamed
// prompts, one seed, every dev question evaluated.
func Preset() experiment.Preset {
	p := experiment.Flywheel()
	p.Name = "specialise"
	p.SFT.Epochs = 8
	p.SFT.Rename = -1 // none (0 means train's default, all renamed)
	// Chosen on the synthetic dev split (docs/dbgen.md): quoted values
	// linked to their columns, and a context that holds a BIRD-sized
	// schema, its values line and a completion without pruning.
	p.SFT.Values = true
	p.SFT.Model = specialiseModel()
	p.RL.Pool = 0 // KTO on all of the holdout: no "heldout" split
	p.RL.Steps = 100
	p.RL.Rename = 0
	p.RL.Reward = reward.Config{Kind: "ex"}
	p.RL.EvalEvery, p.RL.EvalN = 50, 50
	p.Budget = "sized for a BIRD-sized database on 2 cores (docs/dbgen.md)"
	return p
}

// specialiseModel is the small preset at a context of 1,024 tokens.
func specialiseModel() *nn.Config {
	cfg := nn.Presets["small"]
	cfg.MaxSeq = 1024
	return &cfg
}

// QuickPreset is the flywheel's micro model and few steps with the
// command's KTO: the machinery end to end in seconds; the numbers mean
// nothing.
func QuickPreset() experiment.Preset {
	p := experiment.FlywheelQuick()
	p.Name = "specialise-quick"
	p.SFT.Rename = -1
	p.RL.Pool, p.RL.Rename = 0, 0
	p.RL.Reward = reward.Config{Kind: "ex"}
	return p
}

// Check refuses options that cannot run, before any work, naming the
// flag that fixes them.
func (o *Options) Check() error {
	switch {
	case len(o.DBs) == 0:
		return errors.New("-db is required: the SQLite file or postgres:// DSN to specialise to (repeat -db for several)")
	case o.Snapshot.MaxRows < 0:
		return fmt.Errorf("-pg-rows must be positive, got %d", o.Snapshot.MaxRows)
	case o.Out == "":
		return errors.New("-out is required: the folder for the run")
	case o.GeneralMax < 0:
		return fmt.Errorf("-general-max must be 0 (all) or positive, got %d", o.GeneralMax)
	case o.GeneralEach < 0:
		return fmt.Errorf("-general-each must be 0 (all) or positive, got %d", o.GeneralEach)
	case o.N <= 0:
		return fmt.Errorf("-n must be positive, got %d", o.N)
	case o.DevShare <= 0 || o.TestShare < 0 || o.DevShare+o.TestShare >= 1:
		return fmt.Errorf("-dev must be positive, -test non-negative, and both leave a share for train (got %g and %g)", o.DevShare, o.TestShare)
	}
	for _, db := range o.DBs {
		if dbgen.IsPostgres(db) {
			continue // reached when snapshotted, with a message naming -db
		}
		st, err := os.Stat(db)
		switch {
		case err != nil:
			return fmt.Errorf("-db %s: %w", db, err)
		case !st.Mode().IsRegular():
			return fmt.Errorf("-db %s: not a file", db)
		case st.Size() == 0:
			return fmt.Errorf("-db %s: an empty file, not a SQLite database", db)
		}
	}
	if o.Questions != "" {
		if _, err := os.Stat(o.Questions); err != nil {
			return fmt.Errorf("-questions %s: %w", o.Questions, err)
		}
	}
	if o.Descriptions != "" {
		if _, err := os.Stat(o.Descriptions); err != nil {
			return fmt.Errorf("-descriptions %s: %w", o.Descriptions, err)
		}
	}
	if o.TokenizerOwn && o.General == "" {
		return errors.New("-tokenizer-own keeps -general's questions out of the tokenizer: it needs -general")
	}
	if o.GeneralMax > 0 && o.General == "" {
		return errors.New("-general-max caps -general's questions: it needs -general")
	}
	if o.GeneralEach > 0 && o.General == "" {
		return errors.New("-general-each draws from -general's questions each epoch: it needs -general")
	}
	if o.General != "" && o.General != birdtrain.Name {
		if _, err := os.Stat(o.General); err != nil {
			return fmt.Errorf("-general: %w (or -general %s: BIRD's train questions, built in)", err, birdtrain.Name)
		}
	}
	if err := o.Vote.Check(); err != nil {
		return fmt.Errorf("-vote, -vote-temperature: %w", err)
	}
	return o.Preset.CheckFlywheel()
}

// setThreads sets the native model's math threads for the evaluations
// specialise runs itself (the flywheel's runs set their own): o.Threads,
// default 2.
func (o *Options) setThreads() {
	n := o.Threads
	if n == 0 {
		n = 2
	}
	nn.SetThreads(n)
}

// Result is what Run did and found.
type Result struct {
	Report *Report
	// Generated, Trained and HumanRead say whether this invocation
	// generated the questions, ran any training or evaluation run, and
	// read the human test (false: found done before).
	Generated, Trained, HumanRead bool
}

// Run takes o.DBs to a served model in o.Out: generate, SFT, KTO,
// evaluate, serve.json, the human test when o.Questions, and the report.
// Every stage already done in o.Out is reused.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Trainer == nil {
		o.Trainer = experiment.InProcess{}
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("specialise: %w", err)
	}
	res := &Result{}
	for _, db := range o.DBs {
		if dbgen.IsPostgres(db) { // the command line goes into the report
			o.Command = strings.ReplaceAll(o.Command, db, dbgen.RedactDSN(db))
		}
	}
	snaps, err := snapshotAll(ctx, &o)
	if err != nil {
		return nil, err
	}
	stamp, generated, err := generate(ctx, o, snaps)
	if err != nil {
		return nil, err
	}
	res.Generated = generated
	if o.General != "" {
		o.Preset.SFT.General, o.Preset.RL.General = GeneralSplit, GeneralSplit
		o.Preset.SFT.TokenizerOwn = o.TokenizerOwn
		o.Preset.SFT.GeneralEach = o.GeneralEach
	}
	stage(o.Progress, "train and evaluate: SFT, then online KTO on the holdout, then every dev question")
	fo := experiment.Options{Out: filepath.Join(o.Out, FlywheelDir), Bench: filepath.Join(o.Out, DataDir), Preset: o.Preset,
		Seeds: []uint64{o.Seed}, Trainer: o.Trainer, Threads: o.Threads, Progress: o.Progress, Command: o.Command}
	done, err := experiment.ExecuteFlywheel(ctx, fo)
	if err != nil {
		return nil, fmt.Errorf("specialise: train: %w", err)
	}
	res.Trained = done.Ran > 0
	sft, kto, err := models(done.Plan, fo.Out, o.Preset.Rounds)
	if err != nil {
		return nil, err
	}
	dbs := map[string]string{}
	for _, d := range stamp.Databases {
		dbs[d.DBID] = d.Path
	}
	var gd *GeneralDev
	if o.General != "" {
		if gd, err = writeGeneralDev(o.Out, sft); err != nil {
			return nil, err
		}
	}
	served, which := chooseServed(done.Flywheel, sft, kto)
	if gd != nil {
		gd.Score = gd.scoreCommand(served, o.Vote)
	}
	var dv *DevVote
	if o.Vote.On() {
		if dv, err = devVote(ctx, o, served); err != nil {
			return nil, err
		}
	}
	st := askserver.Starter{DBs: dbs, Native: served, Vote: o.Vote}
	if o.Descriptions != "" {
		// The descriptions file reaches prompts through the benchmark's
		// copies of database_description/ (dbgen): serve those, as the
		// models were trained and evaluated with them.
		st.Descriptions = map[string]string{}
		for id := range dbs {
			st.Descriptions[id] = filepath.Join(o.Out, DataDir, "dev_databases", id)
		}
	}
	serve, err := askserver.StarterConfig(st)
	if err != nil {
		return nil, fmt.Errorf("specialise: write %s: %w", ServeFile, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(o.Out, ServeFile), serve); err != nil {
		return nil, fmt.Errorf("specialise: write %s: %w", ServeFile, err)
	}
	var human *HumanTest
	if o.Questions != "" {
		if human, res.HumanRead, err = humanTest(ctx, o, stamp, sft, kto, which); err != nil {
			return nil, err
		}
	}
	rep := newReport(o, stamp, done.Flywheel, human, dv)
	rep.Model, rep.Served, rep.GeneralDev = served, which, gd
	if err := rep.write(o.Out); err != nil {
		return nil, err
	}
	res.Report = rep
	return res, nil
}

// chooseServed picks the model to serve by the synthetic dev split, the
// split settings are chosen on: the KTO model unless its dev EX is below
// the SFT model's, when KTO made the model worse on questions like the
// user's. It returns the run directory and "kto" or "sft".
func chooseServed(fr *experiment.FlywheelReport, sft, kto string) (string, string) {
	for _, t := range fr.Tables {
		if t.Split != "dev" {
			continue
		}
		for _, c := range t.Rows {
			if c.Level == "total" && c.After.Mean < c.Before.Mean {
				return sft, "sft"
			}
		}
	}
	return kto, "kto"
}

// models is the run directories of the flywheel's SFT model and of its
// last KTO round's (one seed): the model before KTO and the one served.
func models(pl *experiment.Plan, out string, rounds int) (sft, kto string, err error) {
	dir := func(r *experiment.Run) string { return filepath.Join(out, "runs", r.ID, experiment.OutDir) }
	for _, s := range pl.Studies {
		if s.Name != experiment.StudyFlywheel || len(s.Arms) == 0 || len(s.Arms[0].Models) == 0 {
			continue
		}
		sft = dir(s.Arms[0].Models[0])
		for _, a := range s.Arms {
			if a.Key == experiment.RoundKey(rounds) && len(a.Models) > 0 {
				return sft, dir(a.Models[0]), nil
			}
		}
	}
	return "", "", errors.New("specialise: the flywheel's plan has no SFT and KTO models")
}

// Stamp records what the generated questions came from, so that a rerun
// reuses them only when nothing changed.
type Stamp struct {
	Databases    []StampDB `json:"databases"`
	Descriptions string    `json:"descriptions,omitempty"` // the file's sha256
	// General is the sha256 of Options.General's question file.
	General string `json:"general,omitempty"`
	// GeneralMax is Options.GeneralMax (0: all of General's questions).
	GeneralMax int     `json:"general_max,omitempty"`
	N          int     `json:"n"`
	DevShare   float64 `json:"dev"`
	TestShare  float64 `json:"test"`
	Seed       uint64  `json:"seed"`
	// Seconds generation took, and the questions per split.
	Seconds float64        `json:"seconds"`
	Counts  map[string]int `json:"counts"`
}

// StampDB is one database: its file (absolute), its sha256, its db_id,
// and for a PostgreSQL snapshot the DSN (without password) and schema.
type StampDB struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	DBID   string `json:"db_id"`
	Source string `json:"source,omitempty"`
}

// same says whether s and t describe the same generation.
func (s *Stamp) same(t *Stamp) bool {
	return slices.Equal(s.Databases, t.Databases) && s.Descriptions == t.Descriptions && s.General == t.General && s.GeneralMax == t.GeneralMax && s.N == t.N &&
		s.DevShare == t.DevShare && s.TestShare == t.TestShare && s.Seed == t.Seed
}

// generate writes the questions into Out/data unless the stamp there says
// they were generated from the same databases and settings.
func generate(ctx context.Context, o Options, snaps map[string]*dbgen.Snapshot) (*Stamp, bool, error) {
	want := &Stamp{N: o.N, DevShare: o.DevShare, TestShare: o.TestShare, Seed: o.Seed}
	for _, db := range o.DBs {
		a, err := filepath.Abs(db)
		if err != nil {
			return nil, false, err
		}
		sum, err := export.FileSHA256(a)
		if err != nil {
			return nil, false, fmt.Errorf("-db %s: %w", db, err)
		}
		sd := StampDB{Path: a, SHA256: sum}
		if s := snaps[db]; s != nil {
			sd.Source = s.Source + " schema " + s.Schema
		}
		want.Databases = append(want.Databases, sd)
	}
	if o.Descriptions != "" {
		sum, err := export.FileSHA256(o.Descriptions)
		if err != nil {
			return nil, false, fmt.Errorf("-descriptions %s: %w", o.Descriptions, err)
		}
		want.Descriptions = sum
	}
	general, generalSum, err := generalQuestions(o.General)
	if err != nil {
		return nil, false, err
	}
	want.General = generalSum
	if general != nil {
		want.GeneralMax = o.GeneralMax
	}
	stampPath, data := filepath.Join(o.Out, StampFile), filepath.Join(o.Out, DataDir)
	var have Stamp
	if b, err := os.ReadFile(stampPath); err == nil {
		if err := json.Unmarshal(b, &have); err != nil {
			return nil, false, fmt.Errorf("specialise: %s: %w (delete it, or pass --force, to generate again)", stampPath, err)
		}
		ids := have.Databases
		have.Databases = nil
		for _, d := range ids {
			have.Databases = append(have.Databases, StampDB{Path: d.Path, SHA256: d.SHA256, Source: d.Source})
		}
		if want.same(&have) {
			have.Databases = ids
			stage(o.Progress, fmt.Sprintf("generate: done before (%s)", counts(have.Counts)))
			return &have, false, nil
		}
		if !o.Force {
			return nil, false, fmt.Errorf("%s holds questions generated from other databases or settings (%s): use another -out, or pass --force to generate them again", o.Out, stampPath)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, false, fmt.Errorf("specialise: %w", err)
	}
	stage(o.Progress, fmt.Sprintf("generate: %d verified questions per database", o.N))
	start := time.Now()
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: sqlexec.Limits{Timeout: 10 * time.Second, MaxRows: 10000}})
	defer eng.Close()
	var gens []dbgen.Generated
	for i, db := range o.DBs {
		d, err := dbgen.Introspect(ctx, eng, db, dbgen.IntrospectOptions{DescriptionsFile: o.Descriptions})
		if err != nil {
			return nil, false, fmt.Errorf("-db %s: %w", db, err)
		}
		if s := snaps[db]; s != nil {
			s.Apply(d)
		}
		var bar *progress.Bar
		if o.Progress != nil {
			bar = progress.New(o.Progress, d.ID, o.N)
		}
		s, err := dbgen.Generate(ctx, eng, d, dbgen.Options{N: o.N, Seed: o.Seed, DevShare: o.DevShare, TestShare: o.TestShare, Progress: bar.Func()})
		bar.Finish()
		if err != nil {
			return nil, false, err // it names the database
		}
		if len(s.Train) == 0 || len(s.Dev) == 0 {
			return nil, false, fmt.Errorf("-db %s: no questions could be generated (%d train, %d dev): the database needs a table with rows and columns to ask about (docs/dbgen.md, Column roles)", db, len(s.Train), len(s.Dev))
		}
		want.Databases[i].DBID = d.ID
		gens = append(gens, dbgen.Generated{DB: d, Splits: s})
	}
	sums, err := dbgen.Write(data, gens, o.Seed, true)
	if err != nil {
		return nil, false, fmt.Errorf("specialise: write %s: %w", data, err)
	}
	want.Counts = map[string]int{}
	for _, s := range sums {
		want.Counts["train"] += s.Train
		want.Counts["dev"] += s.Dev
		want.Counts["test"] += s.Test
	}
	if general != nil {
		n, err := writeGeneral(ctx, o, general, gens)
		if err != nil {
			return nil, false, err
		}
		want.Counts[GeneralSplit] = n
	}
	want.Seconds = time.Since(start).Seconds()
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return nil, false, err
	}
	if err := atomicfile.WriteFile(stampPath, append(b, '\n')); err != nil {
		return nil, false, fmt.Errorf("specialise: %w", err)
	}
	return want, true, nil
}

func counts(c map[string]int) string {
	s := fmt.Sprintf("%d train, %d dev, %d sealed test", c["train"], c["dev"], c["test"])
	if n := c[GeneralSplit]; n > 0 {
		s += fmt.Sprintf("; %d general (other databases' human questions, on stand-ins)", n)
	}
	return s
}

// generalQuestions reads Options.General (nil when empty) and the
// sha256 of its bytes.
func generalQuestions(name string) ([]dataset.Example, string, error) {
	if name == "" {
		return nil, "", nil
	}
	b, data, err := birdtrain.Load(name)
	if err != nil {
		return nil, "", fmt.Errorf("-general: %w", err)
	}
	sum := sha256.Sum256(data)
	return b.Examples, hex.EncodeToString(sum[:]), nil
}

// writeGeneral writes the general questions as DataDir's GeneralSplit,
// their stand-ins in train_databases; questions on a database named as
// one of the user's are left out. It returns the questions kept.
func writeGeneral(ctx context.Context, o Options, exs []dataset.Example, gens []dbgen.Generated) (int, error) {
	own := map[string]bool{}
	for _, g := range gens {
		own[g.DB.ID] = true
	}
	n := len(exs)
	exs = slices.DeleteFunc(slices.Clone(exs), func(ex dataset.Example) bool { return own[ex.DBID] })
	if left := n - len(exs); left > 0 {
		stage(o.Progress, fmt.Sprintf("-general: %d questions on databases named as yours left out", left))
	}
	if o.GeneralMax > 0 && len(exs) > o.GeneralMax {
		stage(o.Progress, fmt.Sprintf("-general-max: %d of %d questions, chosen by -seed", o.GeneralMax, len(exs)))
		exs = sample(exs, o.GeneralMax, o.Seed)
	}
	data := filepath.Join(o.Out, DataDir)
	var bar *progress.Bar
	if o.Progress != nil {
		bar = progress.New(o.Progress, "general questions", len(exs))
	}
	sum, err := standin.Build(ctx, exs, standin.Options{Dir: data, Split: GeneralSplit, DBRoot: filepath.Join(data, "train_databases"), Progress: bar.Func()})
	bar.Finish()
	if err != nil {
		return 0, fmt.Errorf("specialise: -general: %w", err)
	}
	if o.Progress != nil {
		sum.WriteText(o.Progress, data)
	}
	if sum.Kept == 0 {
		return 0, fmt.Errorf("specialise: -general %s: none of its %d questions on other databases has a gold that runs on the stand-in built for it (%v)", o.General, len(exs), sum.Dropped)
	}
	return sum.Kept, nil
}

// sample returns n of exs chosen by seed, in their order in exs.
func sample(exs []dataset.Example, n int, seed uint64) []dataset.Example {
	r := rand.New(rand.NewPCG(seed, 0x67656e6572616c)) // "general"
	pick := r.Perm(len(exs))[:n]
	slices.Sort(pick)
	out := make([]dataset.Example, n)
	for i, j := range pick {
		out[i] = exs[j]
	}
	return out
}

// stage prints a stage's line.
func stage(w io.Writer, s string) {
	if w != nil {
		fmt.Fprintf(w, "specialise: %s\n", strings.TrimSpace(s))
	}
}
