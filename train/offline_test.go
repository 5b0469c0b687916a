package train

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/export"
)

// TestOfflineKTODPO samples a small rollouts file from the SFT policy
// (SampleRollouts), checks that export.ReadRollouts reads it, and trains
// offline KTO and DPO on it: finite losses, moved weights.
func TestOfflineKTODPO(t *testing.T) {
	d := rlData(t)
	init := weightsOf(t, rlInit(t))
	path := filepath.Join(t.TempDir(), "rollouts.jsonl")
	o := rlOptions(t, AlgoKTO, "", parityReward{rlStack(t)})
	o.K, o.Prompts = 3, 4
	n, err := SampleRollouts(context.Background(), d, o, path)
	if err != nil {
		t.Fatal(err)
	}
	rolls, err := export.ReadRollouts(context.Background(), path)
	if err != nil || len(rolls) != n || n != 3*len(d.Holdout) {
		t.Fatalf("%d rollouts read, %d written, %d holdout questions: %v", len(rolls), n, len(d.Holdout), err)
	}
	for _, algo := range OfflineAlgos {
		t.Run(algo, func(t *testing.T) {
			out := t.TempDir()
			o := rlOptions(t, algo, out, nil)
			o.Online, o.OfflineFile = false, path
			res, err := RL(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.State.Step != 3 {
				t.Fatalf("state %+v", res.State)
			}
			if slices.Equal(init, weightsOf(t, out)) {
				t.Error("the weights did not move")
			}
		})
	}
	// a label-only file is read too
	lab := filepath.Join(t.TempDir(), "labels.jsonl")
	var b strings.Builder
	for i, r := range rolls {
		l := i%2 == 0
		line, _ := json.Marshal(map[string]any{"question_id": r.QuestionID, "completion": r.Completion, "label": l})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(lab, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o = rlOptions(t, AlgoKTO, t.TempDir(), nil)
	o.Online, o.OfflineFile = false, lab
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
}
