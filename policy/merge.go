package policy

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Interpolate returns the policy whose weights lie on the line from base
// to tuned: base + alpha*(tuned - base), with tuned's tokenizer, prompt
// format and metadata (its Notes gain the merge's provenance). alpha 1 is
// tuned itself and 0 is base; between them is the weight-space ensemble of
// a fine-tuned model and its start (WiSE-FT, Wortsman et al. 2022; the
// last stage of WARP, Ramé et al. 2024), meant to keep what the
// fine-tuning gained and give back less of what the start knew. On
// sqlrl's renamed dev databases, online KTO merged halfway back to its SFT
// start changes far fewer answers than KTO, nearly all for the better,
// and so gains about the same where KTO gains little and about half where
// KTO gains much (docs/history.md, "Merged back halfway"). Above 1 it
// extrapolates.
//
// The two must be one model trained along one path: the same architecture,
// tokenizer and prompt format, which Interpolate checks; weights of two
// unrelated runs average to noise.
func Interpolate(base, tuned *Policy, alpha float64) (*Policy, error) {
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("interpolate: alpha %v", alpha)
	}
	if base.Model.Cfg != tuned.Model.Cfg {
		return nil, fmt.Errorf("interpolate: models differ (%+v and %+v)", base.Model.Cfg, tuned.Model.Cfg)
	}
	if len(base.Model.Params) != len(tuned.Model.Params) {
		return nil, fmt.Errorf("interpolate: %d and %d parameters", len(base.Model.Params), len(tuned.Model.Params))
	}
	if base.Info.Prompt != tuned.Info.Prompt {
		return nil, fmt.Errorf("interpolate: prompt formats differ (%+v and %+v)", base.Info.Prompt, tuned.Info.Prompt)
	}
	if base.Info.Task != tuned.Info.Task {
		return nil, fmt.Errorf("interpolate: tasks differ (%q and %q)", base.Info.Task, tuned.Info.Task)
	}
	bt, err := base.Tok.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("interpolate: %w", err)
	}
	tt, err := tuned.Tok.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("interpolate: %w", err)
	}
	if !bytes.Equal(bt, tt) {
		return nil, fmt.Errorf("interpolate: the two checkpoints have different tokenizers (not one run's start and end)")
	}
	m := tuned.Model.Clone()
	a := float32(alpha)
	for i, b := range base.Model.Params {
		m.Params[i] = b + a*(tuned.Model.Params[i]-b)
	}
	info := tuned.Info
	info.SQLWords = slices.Clone(info.SQLWords)
	info.Notes = maps.Clone(tuned.Info.Notes)
	if info.Notes == nil {
		info.Notes = map[string]string{}
	}
	info.Notes["merge_alpha"] = fmt.Sprint(alpha)
	info.Notes["merge_base_step"] = fmt.Sprint(base.Info.Step)
	return &Policy{Tok: tuned.Tok, Model: m, Info: info}, nil
}

// MergeCheckpoints writes into out the checkpoint Interpolate makes of the
// checkpoints (or run directories) start and tuned: the one path from
// files to files that `sqlrl model merge` and the flywheel's merge runs
// share.
func MergeCheckpoints(start, tuned string, alpha float64, out string) error {
	s, err := Load(start)
	if err != nil {
		return fmt.Errorf("merge: load start %s: %w", start, err)
	}
	t, err := Load(tuned)
	if err != nil {
		return fmt.Errorf("merge: load tuned %s: %w", tuned, err)
	}
	m, err := Interpolate(s, t, alpha)
	if err != nil {
		return fmt.Errorf("merge %s towards %s: %w", tuned, start, err)
	}
	if err := m.Save(out); err != nil {
		return fmt.Errorf("merge: write %s: %w", out, err)
	}
	return nil
}
