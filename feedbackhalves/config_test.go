package feedbackhalves

import (
	"testing"
)

// TestRunConfigID pins the hash that names a run's directory: a KTO run's
// config hashes as it did before -train existed (the first case is the
// config.json of run s1-AtoB-c3932068cfc3 of
// docs/reports/feedback-halves-specialise36-s123), so that an -out made
// then reads its runs back; an SFT run's config names another directory,
// and so does each SFT setting.
func TestRunConfigID(t *testing.T) {
	kto := DefaultKTO()
	base := func() runConfig {
		return runConfig{Version: 1, Checkpoint: "/work/models/specialise36/out/flywheel/runs/rl-7d1defb42e11/train/step-000100",
			ModelSHA256: "a036db5a0250a31ef2fa8032d60cdd6ba1477374e0198984a5ac29c6c40e825b",
			Questions:   "1602d333b10f188f10a8303225a5405b47554acfb9941bca93167a4acda1f108",
			DBRoot:      "/tmp/halves-clone/datasets/bird-dev-sample/dev_databases", Seed: 1, Trained: HalfA, KTO: &kto}
	}
	if got := base().id(); got != "c3932068cfc3" {
		t.Errorf("a KTO run's id %s, want c3932068cfc3 (the id of the runs made before -train)", got)
	}
	seen := map[string]string{}
	for name, c := range map[string]runConfig{
		"kto":        base(),
		"sft":        sftConfig(base(), SFT{Epochs: 4, LR: 2e-4, Batch: 16}),
		"sft epochs": sftConfig(base(), SFT{Epochs: 5, LR: 2e-4, Batch: 16}),
		"sft lr":     sftConfig(base(), SFT{Epochs: 4, LR: 1e-4, Batch: 16}),
	} {
		id := c.id()
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share the id %s", name, other, id)
		}
		seen[id] = name
	}
}

func sftConfig(c runConfig, s SFT) runConfig {
	c.Train, c.KTO, c.SFT = TrainSFT, nil, &s
	return c
}
