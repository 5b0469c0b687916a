package dataset

import "flag"

// SplitFlags is a command's -split with the flags that say how a run cut
// train, so that the parts no file names (PartHoldout, PartHeldOut) are
// read as the run saw them. Flags takes its defaults from the fields.
type SplitFlags struct {
	Split string
	Parts Parts
}

// Flags declares -split, -sft-fraction, -rl-fraction and -split-seed.
func (s *SplitFlags) Flags(fs *flag.FlagSet) {
	fs.StringVar(&s.Split, "split", s.Split, "benchmark split (<split>.json), or a part of train: holdout (the RLHF holdout at -sft-fraction) or heldout (the part of it that RL at -rl-fraction never drew from)")
	fs.Float64Var(&s.Parts.SFTFraction, "sft-fraction", s.Parts.SFTFraction, "with -split holdout|heldout: SFT's share of train (as sqlrl train sft -sft-fraction)")
	fs.Float64Var(&s.Parts.RLFraction, "rl-fraction", s.Parts.RLFraction, "with -split heldout: the share whose holdout RL drew from (train kto -sft-fraction; the default is the flywheel's)")
	fs.Uint64Var(&s.Parts.Seed, "split-seed", s.Parts.Seed, "with -split holdout|heldout: the seed of the SFT/holdout split (as sqlrl train sft -split-seed)")
}

// Load checks dir (CheckSplit; for a part of train, its train split) and
// reads the split or part from it, keeping its first limit examples (0:
// all).
func (s *SplitFlags) Load(dir string, limit int) (*Benchmark, error) {
	split := s.Split
	if IsPart(split) {
		split = "train"
	}
	if err := CheckSplit(dir, split); err != nil {
		return nil, err
	}
	b, err := LoadSplit(dir, s.Split, s.Parts)
	if err == nil && limit > 0 && limit < len(b.Examples) {
		b.Examples = b.Examples[:limit]
	}
	return b, err
}

// GoldSQL maps each example's question id to its gold SQL.
func (b *Benchmark) GoldSQL() map[int]string {
	gold := make(map[int]string, len(b.Examples))
	for _, ex := range b.Examples {
		gold[ex.QuestionID] = ex.SQL
	}
	return gold
}
