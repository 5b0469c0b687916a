package dataset

import "fmt"

// The recipe cuts train into parts that no file names: the SFT share and
// the RLHF holdout (Split), and, where RL keeps part of the holdout to
// measure what it learnt about its databases apart from the questions it
// was rewarded on, RL's pool and the rest. The commands that read a split
// (generate, eval, pipeline run) address the two parts of the holdout by
// these names, so that a report's figure on them can be redone question by
// question.
const (
	// PartHoldout is the RLHF holdout RL draws from: all of it, or RL's
	// pool where Parts.RLFraction keeps some back.
	PartHoldout = "holdout"
	// PartHeldOut is the part of the holdout RL at Parts.RLFraction
	// never draws: unseen by SFT and RL, on the databases both trained on.
	PartHeldOut = "heldout"
)

// Parts is how a run cut train: the arguments of the Split it made and,
// for RL, the larger share whose holdout is RL's pool.
type Parts struct {
	// Train is the split cut (default "train").
	Train string
	// SFTFraction is SFT's share (0: DefaultSFTFraction).
	SFTFraction float64
	// RLFraction, between SFTFraction and 1, makes RL's pool the holdout
	// of the split at RLFraction (same seed); 0: RL draws from all of the
	// holdout, and there is no PartHeldOut.
	RLFraction float64
	Seed       uint64
}

// IsPart reports whether split names a part of train rather than a file.
func IsPart(split string) bool { return split == PartHoldout || split == PartHeldOut }

// LoadPart reads train from dir and returns the part named (PartHoldout
// or PartHeldOut) as a benchmark of its own, over train's databases.
func LoadPart(dir, part string, p Parts) (*Benchmark, error) {
	if !IsPart(part) {
		return nil, fmt.Errorf("load %s: %q is not a part of train (want %s or %s)", dir, part, PartHoldout, PartHeldOut)
	}
	if part == PartHeldOut && p.RLFraction == 0 {
		return nil, fmt.Errorf("load %s: part %q needs RL's share of train (the RL fraction), which keeps it from RL", dir, part)
	}
	if p.Train == "" {
		p.Train = "train"
	}
	b, err := Load(dir, p.Train)
	if err != nil {
		return nil, err
	}
	sp, err := Split(b.Examples, SplitOptions{SFTFraction: p.SFTFraction, Seed: p.Seed})
	if err != nil {
		return nil, fmt.Errorf("load %s part %s: %w", dir, part, err)
	}
	exs := sp.Holdout
	if p.RLFraction > 0 {
		pool, rest, err := CutPool(b.Examples, sp.Holdout, p)
		if err != nil {
			return nil, fmt.Errorf("load %s part %s: %w", dir, part, err)
		}
		exs = pool
		if part == PartHeldOut {
			exs = rest
		}
	}
	b.Examples = exs
	return b, nil
}

// CutPool splits holdout (the holdout of all at p.SFTFraction) into RL's
// pool, the holdout of the split at p.RLFraction, and the rest. Every
// question of the pool must lie in holdout (the split is stratified, so a
// stratum's rounding may break this for some shares): a cut that would
// hand RL a question SFT trained on is refused.
func CutPool(all, holdout []Example, p Parts) (pool, rest []Example, err error) {
	sft := p.SFTFraction
	if sft == 0 {
		sft = DefaultSFTFraction
	}
	if !(p.RLFraction > sft && p.RLFraction < 1) {
		return nil, nil, fmt.Errorf("RL's share %v must lie between the SFT share %v and 1", p.RLFraction, sft)
	}
	rl, err := Split(all, SplitOptions{SFTFraction: p.RLFraction, Seed: p.Seed})
	if err != nil {
		return nil, nil, err
	}
	in := make(map[int]bool, len(holdout))
	for _, ex := range holdout {
		in[ex.QuestionID] = true
	}
	var outside []int
	for _, ex := range rl.Holdout {
		if !in[ex.QuestionID] {
			outside = append(outside, ex.QuestionID)
		} else {
			delete(in, ex.QuestionID)
		}
	}
	if len(outside) > 0 {
		return nil, nil, fmt.Errorf("RL's share %v: %d of its holdout questions (question_id %d first) are in the SFT share of the %v split the policy trained on; pick another share",
			p.RLFraction, len(outside), outside[0], sft)
	}
	for _, ex := range holdout {
		if in[ex.QuestionID] {
			rest = append(rest, ex)
		}
	}
	return rl.Holdout, rest, nil
}
