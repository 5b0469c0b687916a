package specialise

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

// league is a small database with a foreign key, built in each test.
const league = `
CREATE TABLE team (id INTEGER PRIMARY KEY, team_name TEXT, city TEXT, founded INTEGER);
CREATE TABLE player (id INTEGER PRIMARY KEY, player_name TEXT, team_id INTEGER REFERENCES team(id), position TEXT, height REAL, goals INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO team SELECT i, 'Team ' || char(65 + i % 26) || char(65 + i / 26), CASE i % 3 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Bergen' ELSE 'Tromso' END, 1900 + (i * 7) % 100 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)
INSERT INTO player SELECT i, 'Player ' || char(65 + i % 26) || char(65 + (i / 26) % 26) || i, 1 + (i * 7) % 30,
	CASE i % 4 WHEN 0 THEN 'Keeper' WHEN 1 THEN 'Defender' WHEN 2 THEN 'Midfielder' ELSE 'Forward' END, 160 + (i * 13) % 40, (i * 11) % 25 FROM n;
`

// database writes script into a new SQLite file named name.sqlite.
func database(t *testing.T, name, script string) string { return testkit.SQLiteFile(t, name, script) }

func quickOptions(t *testing.T, dbs ...string) Options {
	return Options{DBs: dbs, Out: filepath.Join(t.TempDir(), "out"), N: 300, DevShare: 0.1, TestShare: 0.05, Seed: 1,
		Preset: QuickPreset(), Command: "sqlrl specialise -quick"}
}

// TestRunStages runs every stage over a tiny database, with and without
// a human test, and checks what each one leaves: the benchmark, the two
// models, a serve.json that `sqlrl serve` accepts, the report's tables.
func TestRunStages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		human  bool
		rounds int
		values bool
	}{{"without questions", false, 0, false}, {"with questions", true, 0, false}, {"two KTO rounds", false, 2, false}, {"value linking", true, 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			db := database(t, "league", league)
			o := quickOptions(t, db)
			o.Preset.Rounds = tc.rounds
			o.Preset.SFT.Values = tc.values
			if tc.human {
				// The user's questions: any BIRD-layout file over the
				// database; here another generation's dev split.
				g := quickOptions(t, db)
				g.Seed = 7
				if _, _, err := generate(context.Background(), g, nil); err != nil {
					t.Fatal(err)
				}
				o.Questions = filepath.Join(g.Out, DataDir, "dev.json")
			}
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Generated || !res.Trained || res.HumanRead != tc.human {
				t.Errorf("first run: generated %v, trained %v, human read %v", res.Generated, res.Trained, res.HumanRead)
			}
			for _, f := range []string{StampFile, ServeFile, ReportMD, ReportJSON, filepath.Join(DataDir, "train.json"), filepath.Join(DataDir, "dev.json")} {
				if _, err := os.Stat(filepath.Join(o.Out, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			t.Setenv("SQLRL_SERVE_KEY", "a-key-of-16-chars-or-more")
			cfg, err := askserver.LoadConfig(filepath.Join(o.Out, ServeFile))
			if err != nil {
				t.Fatalf("serve.json: %v", err)
			}
			if cfg.Generator.Native != res.Report.Model || !strings.Contains(res.Report.Model, "/rl-") {
				t.Errorf("serve.json's model %q, report's %q: want the KTO run", cfg.Generator.Native, res.Report.Model)
			}
			var served experiment.RunConfig
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(res.Report.Model), experiment.ConfigFile)); err != nil || json.Unmarshal(b, &served) != nil {
				t.Fatalf("served run's config: %v", err)
			}
			if parentKind := strings.SplitN(served.Parent, "-", 2)[0]; (tc.rounds > 1) != (parentKind == experiment.KindRL) {
				t.Errorf("served model starts from %s: want the last KTO round's model (%d rounds)", served.Parent, tc.rounds)
			}
			// The format is the SFT run's, and KTO's model keeps it.
			if info, err := readInfo(res.Report.Model); err != nil || info.Prompt.Values != tc.values {
				t.Errorf("served model's prompt format %+v (%v): want values %v", info.Prompt, err, tc.values)
			}
			if _, ok := cfg.Databases["league"]; !ok {
				t.Errorf("serve.json's databases %v: want league", cfg.Databases)
			}
			rep := res.Report
			if len(rep.Dev) == 0 || rep.Dev[len(rep.Dev)-1].Level != "total" || rep.Dev[len(rep.Dev)-1].Questions != rep.Questions["dev"] {
				t.Errorf("dev table %+v: want levels ending in total over %d questions", rep.Dev, rep.Questions["dev"])
			}
			var names []string
			for _, s := range rep.Stages {
				names = append(names, s.Name)
				if (s.Name == "SFT" || s.Name == "KTO") && (s.Steps == 0 || s.Seconds <= 0) {
					t.Errorf("stage %s: %d steps in %g s: want the run's", s.Name, s.Steps, s.Seconds)
				}
			}
			want := "generate,SFT,KTO,evaluate (dev)"
			if tc.human {
				want += ",human test"
			}
			if strings.Join(names, ",") != want {
				t.Errorf("stages %v, want %s", names, want)
			}
			md := string(rep.Markdown())
			human := strings.Index(md, "## Human test")
			if tc.human != (human >= 0) || (tc.human && human < strings.Index(md, "## Synthetic dev")) {
				t.Errorf("report.md: the human test table should be there (%v) and last:\n%s", tc.human, md)
			}
			if rep.PeakRSS <= 0 || !strings.Contains(md, "Peak resident memory: ") {
				t.Errorf("peak memory %d bytes, not in report.md", rep.PeakRSS)
			}
			if tc.values != strings.Contains(md, "values linked in prompts") {
				t.Errorf("report.md does not say whether values are linked (%v):\n%s", tc.values, md)
			}
			if tc.human {
				for _, m := range []string{"sft", "kto"} {
					r, err := eval.ReadReport(filepath.Join(o.Out, rep.Human.Questions[m]))
					if err != nil || len(r.Questions) != rep.Human.Scores[m].N {
						t.Errorf("%s model's question-by-question file %q: %v", m, rep.Human.Questions[m], err)
					}
				}
			}
			if tc.human && (rep.Human.Reads != 1 || rep.Human.Scores["kto"].N != rep.Human.Scores["sft"].N || rep.Human.Scores["kto"].N == 0) {
				t.Errorf("human test %+v: want one read, both models on every question", rep.Human)
			}
		})
	}
}

// TestResume runs the command twice: the second run generates, trains
// and reads the human test nothing, and writes the same tables.
func TestResume(t *testing.T) {
	db := database(t, "league", league)
	o := quickOptions(t, db)
	o.Questions = filepath.Join(t.TempDir(), "mine.json")
	first, err := Run(context.Background(), quickOptions(t, db)) // any generation's dev split
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(first.Report.Serve), DataDir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.Questions, b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Generated || again.Trained || again.HumanRead {
		t.Errorf("second run: generated %v, trained %v, human read %v: want only the report", again.Generated, again.Trained, again.HumanRead)
	}
	if string(a.Report.Markdown()) != string(again.Report.Markdown()) {
		t.Errorf("report changed on a rerun:\n%s\n---\n%s", a.Report.Markdown(), again.Report.Markdown())
	}
	var reads struct{ Reads []experiment.TestRead }
	raw, err := os.ReadFile(filepath.Join(o.Out, ReadsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &reads); err != nil || len(reads.Reads) != 1 {
		t.Errorf("%s: %d reads (%v), want 1", ReadsFile, len(reads.Reads), err)
	}

	// Turning the vote on trains nothing and reads the human test once
	// more, for the served model by vote alone; a rerun reads nothing.
	o.Vote = consensus.Sampling{Samples: 2, Temperature: 0.7, TopP: consensus.TopP}
	for i, wantRead := range []bool{true, false} {
		v, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if v.Generated || v.Trained || v.HumanRead != wantRead {
			t.Errorf("vote run %d: generated %v, trained %v, human read %v; want a read %v", i, v.Generated, v.Trained, v.HumanRead, wantRead)
		}
		rep := v.Report
		key := VoteKey(rep.Served)
		h := rep.Human
		if h == nil || h.Vote != o.Vote || h.Scores[key] == nil || h.Scores[key].N != h.Scores["sft"].N || h.Reads != 2 || h.Questions[key] == "" {
			t.Fatalf("vote run %d: human test %+v: want the served model by vote over every question, 2 reads", i, h)
		}
		if h.Scores["sft"].EX != a.Report.Human.Scores["sft"].EX || h.Scores["kto"].EX != a.Report.Human.Scores["kto"].EX {
			t.Errorf("vote run %d: the greedy SFT score changed: %+v, was %+v", i, h.Scores["sft"], a.Report.Human.Scores["sft"])
		}
		if rep.DevVote == nil || rep.DevVote.Eval.N != rep.Questions["dev"] || rep.DevVote.Model != rep.Model {
			t.Errorf("vote run %d: dev by vote %+v: want the served model over every dev question", i, rep.DevVote)
		}
		md := string(rep.Markdown())
		if !strings.Contains(md, "| served, by vote |") || !strings.Contains(md, "answers by a vote of the greedy decode and 2 samples at T 0.7, top-p 0.9") {
			t.Errorf("vote run %d: report.md does not show the vote:\n%s", i, md)
		}
		t.Setenv("SQLRL_SERVE_KEY", "a-key-of-16-chars-or-more")
		cfg, err := askserver.LoadConfig(filepath.Join(o.Out, ServeFile))
		if err != nil || !cfg.Generator.Vote || cfg.Generator.SampleCount() != 2 || cfg.Generator.SampleTemperature != 0.7 {
			t.Errorf("vote run %d: serve.json's generator %+v (%v): want a vote over 2 samples at T 0.7", i, cfg.Generator, err)
		}
	}

	// A record made before question-by-question files were kept is read
	// again for them, and only for them; the scores stay.
	var h HumanTest
	path := filepath.Join(o.Out, HumanFile)
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &h) != nil {
		t.Fatalf("%s: %v", HumanFile, err)
	}
	ex := h.Scores["sft"].EX
	delete(h.Questions, "sft")
	if b, err := json.Marshal(h); err != nil || os.WriteFile(path, b, 0o644) != nil {
		t.Fatal(err)
	}
	old, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if oh := old.Report.Human; !old.HumanRead || oh.Reads != 3 || oh.Questions["sft"] == "" || oh.Scores["sft"].EX != ex {
		t.Errorf("old record: human read %v, %+v; want a third read restoring the sft file with EX %g", old.HumanRead, oh, ex)
	}
}

// TestBadInput: each mistake stops before any work with a message naming
// what to fix.
func TestBadInput(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.sqlite")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	noTables := database(t, "none", "")
	good := database(t, "league", league)
	used := quickOptions(t, good)
	used.Preset.SFT.MaxSteps = 1
	if _, _, err := generate(context.Background(), used, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"no -db", func(o *Options) { o.DBs = nil }, "-db is required"},
		{"missing file", func(o *Options) { o.DBs = []string{filepath.Join(t.TempDir(), "gone.sqlite")} }, "gone.sqlite: stat"},
		{"empty file", func(o *Options) { o.DBs = []string{empty} }, "an empty file, not a SQLite database"},
		{"database without tables", func(o *Options) { o.DBs = []string{noTables} }, "none.sqlite"},
		{"missing questions", func(o *Options) { o.Questions = "nope.json" }, "-questions nope.json"},
		{"no -n", func(o *Options) { o.N = 0 }, "-n must be positive"},
		{"negative -general-max", func(o *Options) { o.GeneralMax = -1 }, "-general-max must be 0 (all) or positive"},
		{"-general-max without -general", func(o *Options) { o.GeneralMax = 10 }, "it needs -general"},
		{"negative -general-each", func(o *Options) { o.GeneralEach = -1 }, "-general-each must be 0 (all) or positive"},
		{"-general-each without -general", func(o *Options) { o.GeneralEach = 10 }, "-general-each draws from -general's questions"},
		{"-tokenizer-own without -general", func(o *Options) { o.TokenizerOwn = true }, "it needs -general"},
		{"unreachable PostgreSQL", func(o *Options) { o.DBs = []string{"postgres://u:pw@127.0.0.1:1/db?sslmode=disable"} }, "-db postgres://u:xxxxx@127.0.0.1:1/db?sslmode=disable: cannot connect"},
		{"other settings in -out", func(o *Options) { o.Out, o.Seed = used.Out, 2 }, "pass --force"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := quickOptions(t, good)
			tc.edit(&o)
			_, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(o.Out, FlywheelDir)); err == nil {
				t.Errorf("%s: training started", o.Out)
			}
		})
	}
}

// readInfo reads a run's checkpoint info.
func readInfo(run string) (policy.Info, error) {
	ck, err := policy.Resolve(run)
	if err != nil {
		return policy.Info{}, err
	}
	return policy.ReadInfo(ck)
}

// TestChooseServed: the KTO model is served unless it lowered the
// synthetic dev EX; other splits and levels do not decide.
func TestChooseServed(t *testing.T) {
	table := func(split, level string, before, after float64) experiment.BeforeAfter {
		return experiment.BeforeAfter{Split: split, Rows: []experiment.Change{
			{Level: "simple", Before: experiment.Stat{Mean: 0}, After: experiment.Stat{Mean: 90}},
			{Level: level, Before: experiment.Stat{Mean: before}, After: experiment.Stat{Mean: after}}}}
	}
	for _, tc := range []struct {
		name   string
		tables []experiment.BeforeAfter
		want   string
	}{
		{"KTO better", []experiment.BeforeAfter{table("dev", "total", 40, 42)}, "kto"},
		{"tie", []experiment.BeforeAfter{table("dev", "total", 40, 40)}, "kto"},
		{"KTO worse", []experiment.BeforeAfter{table("dev", "total", 42.3, 40.3)}, "sft"},
		{"worse on another split only", []experiment.BeforeAfter{table("heldout", "total", 50, 40), table("dev", "total", 40, 41)}, "kto"},
		{"no dev table", nil, "kto"},
	} {
		model, which := chooseServed(&experiment.FlywheelReport{Tables: tc.tables}, "runs/sft", "runs/rl")
		if which != tc.want || model != "runs/"+map[string]string{"kto": "rl", "sft": "sft"}[tc.want] {
			t.Errorf("%s: served %s (%s), want %s", tc.name, which, model, tc.want)
		}
	}
}

// TestServeDescriptions: with a descriptions file, serve.json points the
// server at the benchmark's database_description/ copies, where the file's
// descriptions are (dbgen), so the served prompts show what the models
// were trained with; without one, the server reads beside the database.
func TestServeDescriptions(t *testing.T) {
	db := database(t, "league", league)
	desc := filepath.Join(t.TempDir(), "desc.json")
	if err := os.WriteFile(desc, []byte(`{"tables": {"player": {"columns": {"goals": {"description": "goals scored this season"}}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SQLRL_SERVE_KEY", "a-key-of-16-chars-or-more")
	for _, withFile := range []bool{false, true} {
		o := quickOptions(t, db)
		o.Preset.SFT.MaxSteps, o.Preset.RL.Steps = 2, 1
		if withFile {
			o.Descriptions = desc
		}
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		cfg, err := askserver.LoadConfig(filepath.Join(o.Out, ServeFile))
		if err != nil {
			t.Fatalf("serve.json: %v", err)
		}
		got := cfg.Databases["league"].Descriptions
		if !withFile {
			if got != "" {
				t.Errorf("without a descriptions file serve.json names descriptions %q", got)
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(got, "database_description", "player.csv"))
		if err != nil || !strings.Contains(string(b), "goals scored this season") {
			t.Errorf("serve.json's descriptions %q: player.csv %q (%v), want the file's description", got, b, err)
		}
	}
}

// TestSample: -general-max's subset is n distinct questions in the
// file's order, the same for a seed and another for another seed.
func TestSample(t *testing.T) {
	var exs []dataset.Example
	for i := range 40 {
		exs = append(exs, dataset.Example{QuestionID: i})
	}
	ids := func(seed uint64) []int {
		var out []int
		for _, ex := range sample(exs, 10, seed) {
			out = append(out, ex.QuestionID)
		}
		return out
	}
	a := ids(1)
	if len(a) != 10 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 10 {
		t.Errorf("sample of 10: %v, want 10 distinct questions in the file's order", a)
	}
	if b, c := ids(1), ids(2); !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("seed 1 %v and again %v, seed 2 %v; want the same for a seed and another for another", a, b, c)
	}
}

// TestGeneral: -general's questions reach SFT's data on stand-ins beside
// the user's databases, never the KTO holdout; the stamp records them, so
// a rerun reuses them and another file needs --force.
func TestGeneral(t *testing.T) {
	db := database(t, "league", league)
	var recs []string
	for i, kind := range []string{"cat", "dog", "owl", "fox", "elk", "yak", "emu", "bat"} {
		for j := range 5 {
			recs = append(recs, fmt.Sprintf(`{"question_id": %d, "db_id": "zoo", "question": "How many %ss are older than %d?", "evidence": "%s refers to kind = '%s'", "SQL": "SELECT COUNT(*) FROM animal WHERE kind = '%s' AND age > %d"}`,
				i*5+j, kind, j, kind, kind, kind, j))
		}
	}
	// A question on a database named as the user's is left out.
	recs = append(recs, `{"question_id": 99, "db_id": "league", "question": "Teams?", "SQL": "SELECT team_name FROM team"}`)
	file := filepath.Join(t.TempDir(), "general.json")
	if err := os.WriteFile(file, []byte("["+strings.Join(recs, ",\n")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := quickOptions(t, db)
	o.General = file
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Questions[GeneralSplit] != 40 {
		t.Errorf("general questions kept: %d, want 40", res.Report.Questions[GeneralSplit])
	}
	if _, err := os.Stat(filepath.Join(o.Out, DataDir, "train_databases", "zoo", "zoo.sqlite")); err != nil {
		t.Errorf("zoo's stand-in: %v", err)
	}
	if res.Report.Preset.SFT.General != GeneralSplit || res.Report.Preset.RL.General != GeneralSplit {
		t.Errorf("preset's general splits: %q, %q", res.Report.Preset.SFT.General, res.Report.Preset.RL.General)
	}
	if md := string(res.Report.Markdown()); !strings.Contains(md, "40 general") || !strings.Contains(md, "of the general questions") {
		t.Errorf("report does not name the general questions:\n%s", md)
	}
	// general-dev.json: the general questions SFT's split held out (about
	// a quarter of 40), with their own ids, on the stand-ins score reads.
	gd := res.Report.GeneralDev
	if gd == nil {
		t.Fatal("no general dev split in the report")
	}
	dev, err := dataset.LoadQuestions(filepath.Join(o.Out, GeneralDevFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(dev.Examples); n != gd.Questions || n != gd.HeldOut || n < 8 || n > 12 || !slices.Equal(gd.Databases, []string{"zoo"}) {
		t.Errorf("general dev split: %d questions (report: %d of %d held out, on %v), want about 10 on zoo", n, gd.Questions, gd.HeldOut, gd.Databases)
	}
	for _, ex := range dev.Examples {
		if ex.DBID != "zoo" || ex.QuestionID < 0 || ex.QuestionID >= 40 {
			t.Errorf("general dev question %d on %s: want the file's own ids, on zoo", ex.QuestionID, ex.DBID)
		}
	}
	if _, err := os.Stat(filepath.Join(gd.DBRoot, "zoo", "zoo.sqlite")); err != nil {
		t.Errorf("general dev split's databases: %v", err)
	}
	if want := "sqlrl score -model " + res.Report.Model + " -questions " + filepath.Join(o.Out, GeneralDevFile) + " -db-root " + gd.DBRoot + " -json"; !strings.HasPrefix(gd.Score, want) { // quickOptions answers greedily
		t.Errorf("general dev split's command %q, want it to begin %q (the served model, as it answers)", gd.Score, want)
	}
	if md := string(res.Report.Markdown()); !strings.Contains(md, "## Human questions for choosing settings") || !strings.Contains(md, gd.Score) {
		t.Errorf("report does not say where the general dev split is:\n%s", md)
	}
	// An SFT that trained on every general question (as a tiny file's
	// split may) leaves no dev split: none is written, and no error.
	ck := filepath.Join(t.TempDir(), "ck")
	if err := os.MkdirAll(ck, 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(policy.Info{Format: policy.CheckpointFormat, Notes: map[string]string{
		"general": GeneralSplit + " (40 questions)", "sft_fraction": "1", "split_seed": "1", "train_split": "train"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ck, policy.FileConfig), info, 0o644); err != nil {
		t.Fatal(err)
	}
	if none, err := writeGeneralDev(t.TempDir(), ck); none != nil || err == nil {
		t.Errorf("a -out without data: %+v, %v; want an error", none, err)
	}
	if none, err := writeGeneralDev(o.Out, ck); none != nil || err != nil {
		t.Errorf("SFT on every general question: %+v, %v; want no dev split and no error", none, err)
	}

	again, err := Run(context.Background(), o)
	if err != nil || again.Generated || again.Trained {
		t.Errorf("rerun: generated %v, trained %v, %v", again.Generated, again.Trained, err)
	}
	// -tokenizer-own is an SFT setting: the same questions, SFT anew.
	o.TokenizerOwn = true
	own, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if own.Generated || !own.Trained || !own.Report.Preset.SFT.TokenizerOwn {
		t.Errorf("-tokenizer-own: generated %v, trained %v, preset's tokenizer_own %v; want SFT anew on the same questions", own.Generated, own.Trained, own.Report.Preset.SFT.TokenizerOwn)
	}
	if md := string(own.Report.Markdown()); !strings.Contains(md, "tokenizer learnt from train alone") {
		t.Errorf("report does not say the tokenizer's source:\n%s", md)
	}
	settings, err := filepath.Glob(filepath.Join(o.Out, FlywheelDir, "runs", "sft-*", "train", train.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	withOwn := 0
	for _, f := range settings {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"tokenizer_own": true`) {
			withOwn++
		}
	}
	if len(settings) != 2 || withOwn != 1 {
		t.Errorf("%d SFT runs, %d with tokenizer_own; want the first without and the second with it", len(settings), withOwn)
	}
	o.TokenizerOwn = false
	o.General = ""
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("without -general over a run with it: %v, want a --force refusal", err)
	}
	// -general-max keeps that many; the stamp records it, so another cap
	// over the same -out needs --force (which questions: TestSample).
	o = quickOptions(t, db)
	// -general-each, an SFT setting, reaches SFT and the report.
	o.General, o.GeneralMax, o.GeneralEach = file, 10, 3
	capped, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := capped.Report.Questions[GeneralSplit]; got != 10 {
		t.Errorf("-general-max 10: %d general questions kept", got)
	}
	if got := capped.Report.Preset.SFT.GeneralEach; got != 3 {
		t.Errorf("-general-each 3: SFT's general_each is %d", got)
	}
	if md := string(capped.Report.Markdown()); !strings.Contains(md, "the next 3 of a shuffle") {
		t.Errorf("report does not say -general-each's draw:\n%s", md)
	}
	o.GeneralMax = 11
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("another -general-max over the same -out: %v, want a --force refusal", err)
	}
	// A file none of whose golds runs stops before training.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"question_id": 1, "db_id": "zoo", "question": "q", "SQL": "SELECT FROM WHERE"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	o = quickOptions(t, db)
	o.General = bad
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "none of its 1 questions") {
		t.Errorf("a file of failing golds: %v", err)
	}
}

func TestLargest(t *testing.T) {
	count := map[string]int{"works_cycles": 95, "public_review_platform": 64, "movie_3": 56, "mondial_geo": 52, "soccer_2016": 47, "app_store": 47, "a": 3}
	for _, tc := range []struct {
		least int
		want  []string
	}{
		{300, []string{"works_cycles", "public_review_platform", "movie_3", "mondial_geo", "app_store"}}, // a tie goes by name
		{314, []string{"works_cycles", "public_review_platform", "movie_3", "mondial_geo", "app_store"}},
		{315, []string{"works_cycles", "public_review_platform", "movie_3", "mondial_geo", "app_store", "soccer_2016"}},
		{1, []string{"works_cycles"}},
		{95, []string{"works_cycles"}},
		{96, []string{"works_cycles", "public_review_platform"}},
		{1000, []string{"works_cycles", "public_review_platform", "movie_3", "mondial_geo", "app_store", "soccer_2016", "a"}},
	} {
		if got := largest(count, tc.least); !slices.Equal(got, tc.want) {
			t.Errorf("largest(%d) = %v, want %v", tc.least, got, tc.want)
		}
	}
}

func TestGeneralDevScoreCommand(t *testing.T) {
	g := &GeneralDev{File: "out/x/general-dev.json", DBRoot: "out/x/data/train_databases"}
	base := "sqlrl score -model M -questions out/x/general-dev.json -db-root out/x/data/train_databases"
	cool := DefaultVote()
	cool.Temperature = 0.7
	for _, tc := range []struct {
		vote consensus.Sampling
		want string
	}{
		{consensus.Sampling{}, base + " -json general-dev-eval.json"},
		{DefaultVote(), base + fmt.Sprintf(" -vote %d -json general-dev-eval.json", DefaultVote().Samples)},
		{cool, base + fmt.Sprintf(" -vote %d -vote-temperature 0.7 -json general-dev-eval.json", DefaultVote().Samples)},
	} {
		if got := g.scoreCommand("M", tc.vote); got != tc.want {
			t.Errorf("vote %+v: %q, want %q", tc.vote, got, tc.want)
		}
	}
}

// TestReportSFT100: with -sft100 the report gives SFT on all of train a
// stage of its own and a dev column; without it, neither appears.
func TestReportSFT100(t *testing.T) {
	stamp := &Stamp{Databases: []StampDB{{DBID: "league", Path: "league.sqlite", SHA256: strings.Repeat("a", 64)}}, Counts: map[string]int{"train": 10}}
	for _, with100 := range []bool{false, true} {
		fr := &experiment.FlywheelReport{Preset: experiment.Quick()}
		fr.Stages = []experiment.RunRow{
			{Name: "sft75/seed1", Kind: experiment.KindSFT, Steps: 30, Seconds: 60},
			{Name: "okto/seed1", Kind: experiment.KindRL, Steps: 5, Seconds: 30},
			{Name: "eval/okto/seed1/dev", Kind: experiment.KindEval, Seconds: 6},
		}
		row := experiment.Change{Level: "total", Questions: 20, Before: experiment.Stat{Mean: 40}, After: experiment.Stat{Mean: 45}, Delta: 5}
		if with100 {
			fr.Stages = append(fr.Stages, experiment.RunRow{Name: "sft100/seed1", Kind: experiment.KindSFT, Steps: 40, Seconds: 90})
			row.SFT100 = &experiment.Stat{Mean: 47.5}
		}
		fr.Tables = []experiment.BeforeAfter{{Split: "dev", Rows: []experiment.Change{row}}}
		r := newReport(Options{Command: "sqlrl specialise", Out: t.TempDir()}, stamp, fr, nil, nil)
		md := string(r.Markdown())
		var names []string
		for _, s := range r.Stages {
			names = append(names, s.Name)
		}
		if r.Stages[1].Name != "SFT" || r.Stages[1].Steps != 30 {
			t.Errorf("-sft100 %v: SFT stage %+v; want the served model's SFT alone (30 steps)", with100, r.Stages[1])
		}
		has := slices.Contains(names, sft100Stage)
		if has != with100 || strings.Contains(md, "SFT-100") != with100 || strings.Contains(md, "| 40.0 | 45.0 | +5.0 | 47.5 |") != with100 {
			t.Errorf("-sft100 %v: stages %v, report:\n%s", with100, names, md)
		}
		if with100 && r.Stages[2].Steps != 40 {
			t.Errorf("SFT-100 stage %+v; want its 40 steps, after SFT", r.Stages[2])
		}
	}
}
