package train

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/standin"
)

// generalBench is tinyBench's train split beside the BIRD sample's
// questions as a general split, on stand-ins of their databases.
func generalBench(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "train_databases"), os.DirFS(filepath.Join(tinyBench(t), "train_databases"))); err != nil {
		t.Fatal(err)
	}
	trainB, err := os.ReadFile(filepath.Join(tinyBench(t), "train.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "train.json"), trainB, 0o644); err != nil {
		t.Fatal(err)
	}
	human, err := dataset.LoadQuestions(filepath.Join(testkit.BirdSample(), "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := standin.Build(context.Background(), human.Examples, standin.Options{Dir: dir, Split: "general", DBRoot: filepath.Join(dir, "train_databases")}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGeneralHeldOut: the general questions SFT's share leaves out, with
// their own ids, are what LoadBench's Train lacks of the general split;
// StartGeneralHeldOut cuts them as a checkpoint's notes record, and says
// so when a checkpoint trained on no general questions.
func TestGeneralHeldOut(t *testing.T) {
	dir := generalBench(t)
	d, err := LoadBench(BenchOptions{Dir: dir, Seed: 3, Format: policy.Format{Kind: policy.FormatCompact}, DevSplit: "-", General: "general"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	inSFT := map[int]bool{}
	for _, ex := range d.Train {
		if ex.QuestionID >= GeneralIDBase {
			inSFT[ex.QuestionID-GeneralIDBase] = true
		}
	}
	g, err := dataset.LoadQuestions(filepath.Join(dir, "general.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, ex := range g.Examples {
		if !inSFT[ex.QuestionID] {
			want = append(want, ex.QuestionID)
		}
	}
	slices.Sort(want)
	held, err := GeneralHeldOut(BenchOptions{Dir: dir, Seed: 3, General: "general"})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(exampleIDs(held), want) {
		t.Fatalf("held out %v, want the %d general questions SFT's share lacks: %v", exampleIDs(held), len(want), want)
	}
	if other, err := GeneralHeldOut(BenchOptions{Dir: dir, Seed: 4, General: "general"}); err != nil || slices.Equal(exampleIDs(other), want) {
		t.Errorf("another split seed held out the same questions (err %v)", err)
	}
	if _, err := GeneralHeldOut(BenchOptions{Dir: dir, Seed: 3}); err == nil {
		t.Error("no general split: want an error")
	}

	ck := filepath.Join(t.TempDir(), "ck")
	writeInfo := func(notes map[string]string) {
		t.Helper()
		if err := os.MkdirAll(ck, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(policy.Info{Format: policy.CheckpointFormat, Notes: notes})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ck, policy.FileConfig), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeInfo(d.Notes)
	if got, err := StartGeneralHeldOut(ck, dir); err != nil || !slices.Equal(exampleIDs(got), want) {
		t.Errorf("StartGeneralHeldOut with the notes LoadBench wrote: %v (err %v), want %v", exampleIDs(got), err, want)
	}
	notes := maps.Clone(d.Notes)
	delete(notes, "general")
	writeInfo(notes)
	if _, err := StartGeneralHeldOut(ck, dir); err == nil || !strings.Contains(err.Error(), "no general questions") {
		t.Errorf("a checkpoint without general questions: got %v", err)
	}
}

// TestGeneralSplit: general questions (stand-ins beside train's
// databases) join the train split before the cut, so SFT's share is the
// one a train.json holding both would give, and the holdout holds none.
func TestGeneralSplit(t *testing.T) {
	dir := generalBench(t)
	f := policy.Format{Kind: policy.FormatCompact}
	d, err := LoadBench(BenchOptions{Dir: dir, Seed: 3, Format: f, DevSplit: "-", General: "general"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var general int
	for _, ex := range d.Train {
		if ex.QuestionID >= GeneralIDBase {
			general++
		}
	}
	for _, ex := range d.Holdout {
		if ex.DBID == "superhero" || ex.DBID == "student_club" {
			t.Fatalf("holdout question %d is on the stand-in %s", ex.QuestionID, ex.DBID)
		}
	}
	if general < 200 || general > 230 || len(d.Holdout) == 0 {
		t.Errorf("%d general questions in SFT's share (want ~75%% of 287), %d in the holdout", general, len(d.Holdout))
	}
	if _, _, err := d.render(context.Background(), &d.Train[slices.IndexFunc(d.Train, func(e Example) bool { return e.QuestionID >= GeneralIDBase })], nil, 0, nil); err != nil {
		t.Errorf("a general question's prompt: %v", err)
	}

	// The same split as one train.json holding both, ids moved.
	b, err := dataset.Load(dir, "train")
	if err != nil {
		t.Fatal(err)
	}
	g, err := dataset.LoadQuestions(filepath.Join(dir, "general.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range g.Examples {
		ex.QuestionID += GeneralIDBase
		b.Examples = append(b.Examples, ex)
	}
	sp, err := dataset.Split(b.Examples, dataset.SplitOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []dataset.Example
	for _, ex := range d.Train {
		got = append(got, ex.Example)
	}
	if !slices.Equal(exampleIDs(got), exampleIDs(sp.SFT)) {
		t.Error("SFT's share differs from a merged train.json's")
	}

	// -tokenizer-own: the general questions' words leave the tokenizer.
	pieces := func(own bool) int {
		o := SFTOptions{SFTConfig: SFTConfig{Split: Split{General: "general"}, Preset: "tiny", VocabSize: 600, TokenizerOwn: own}}
		o.defaults()
		pol, err := newSFT(d, o).NewPolicy(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(pol.Tok.Encode("superhero student_club"))
	}
	if both, own := pieces(false), pieces(true); own <= both {
		t.Errorf("the general split's database names cut into %d tokens by the tokenizer of both, %d by the own one's (want more)", both, own)
	}
	if _, err := SFT(context.Background(), d, SFTOptions{SFTConfig: SFTConfig{TokenizerOwn: true}}); err == nil || !strings.Contains(err.Error(), "needs -general") {
		t.Errorf("-tokenizer-own without -general: got %v", err)
	}

	// -general-each: an epoch trains on every own question and N general
	// ones, another N each epoch, the same N for the same seed and epoch.
	var own int
	for _, ex := range d.Train {
		if ex.QuestionID < GeneralIDBase {
			own++
		}
	}
	const each = 40
	eachSFT := func(seed uint64) *sft {
		o := SFTOptions{Run: Run{Seed: seed}, SFTConfig: SFTConfig{Split: Split{General: "general"}, Preset: "tiny", VocabSize: 600, GeneralEach: each}}
		o.defaults()
		return newSFT(d, o)
	}
	drawn := func(use []bool) []int {
		var ids []int
		for i, u := range use {
			if u && d.Train[i].QuestionID >= GeneralIDBase {
				ids = append(ids, d.Train[i].QuestionID)
			}
		}
		return ids
	}
	s1 := eachSFT(1)
	if want := (own + each + s1.o.BatchSize - 1) / s1.o.BatchSize; s1.nb != want {
		t.Errorf("-general-each %d: %d batches an epoch, want %d (%d own questions and %d general)", each, s1.nb, want, own, each)
	}
	e0, e1 := s1.epochUse(0), s1.epochUse(1)
	if n := len(drawn(e0)); n != each || slices.Index(e0, false) < 0 {
		t.Errorf("epoch 0 trains on %d general questions, want %d", n, each)
	}
	for i, u := range e0 {
		if !u && d.Train[i].QuestionID < GeneralIDBase {
			t.Fatalf("epoch 0 leaves out own question %d", d.Train[i].QuestionID)
		}
	}
	if !slices.Equal(drawn(e1), drawn(eachSFT(1).epochUse(1))) || slices.Equal(drawn(e1), drawn(eachSFT(2).epochUse(1))) {
		t.Error("-general-each: want the same draw for the same seed and epoch, another for another seed")
	}
	// Every general question is met once before any twice: the epochs
	// that fit in one pass draw disjoint sets, the next completes it.
	seen := map[int]int{}
	total := len(s1.general)
	for e := 0; e <= total/each; e++ {
		use := s1.epochUse(e)
		if n := len(drawn(use)); n != each {
			t.Errorf("epoch %d draws %d general questions, want %d", e, n, each)
		}
		for _, id := range drawn(use) {
			if seen[id]++; seen[id] > 1 && e < total/each {
				t.Errorf("epoch %d: general question %d drawn again before all %d were", e, id, total)
			}
		}
	}
	if len(seen) != total {
		t.Errorf("%d epochs of %d drew %d distinct general questions of %d, want all", total/each+1, each, len(seen), total)
	}
	if s1.Fingerprint()["general_each"] != "40" {
		t.Error("-general-each is not in the fingerprint: a run would resume with another value")
	}
	planEpoch(t, s1, 1)
	var planned int
	for _, b := range s1.plan {
		planned += len(b)
	}
	if len(s1.plan) != s1.nb || planned+s1.skipped != own+each {
		t.Errorf("epoch 1's plan: %d batches (want %d), %d sequences + %d too long (want %d)", len(s1.plan), s1.nb, planned, s1.skipped, own+each)
	}
	for _, tc := range []struct {
		o   SFTConfig
		err string
	}{
		{SFTConfig{GeneralEach: 5}, "needs -general"},
		{SFTConfig{Split: Split{General: "general"}, GeneralEach: -1}, "must be 0 (all) or positive"},
	} {
		if _, err := SFT(context.Background(), d, SFTOptions{SFTConfig: tc.o}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("-general-each %d, -general %q: got %v, want %q", tc.o.GeneralEach, tc.o.General, err, tc.err)
		}
	}

	for _, tc := range []struct{ name, body, err string }{
		{"on a train database", `[{"question_id": 1, "db_id": "` + b.Examples[0].DBID + `", "question": "q", "SQL": "SELECT 1"}]`, "a database of the train split"},
		{"no database", `[{"question_id": 1, "db_id": "nowhere", "question": "q", "SQL": "SELECT 1"}]`, "its database"},
		{"id too large", `[{"question_id": 1000000, "db_id": "superhero", "question": "q", "SQL": "SELECT 1"}]`, "must lie in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadBench(BenchOptions{Dir: dir, Seed: 3, Format: f, DevSplit: "-", General: "bad"})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

// exampleIDs lists exs' question ids in order.
func exampleIDs(exs []dataset.Example) []int {
	var out []int
	for _, ex := range exs {
		out = append(out, ex.QuestionID)
	}
	return out
}
