// Package train trains sqlrl's native policy (package policy). Loop is the
// training loop every method shares: AdamW with linear warmup and cosine
// decay (Schedule), gradient clipping, dev evaluation by execution,
// train_log.jsonl, and checkpoints from which a killed run resumes exactly
// (same optimizer state and the same step numbers, hence the same losses
// bit for bit), refusing a run directory that holds other settings. A
// method is an Objective: the gradient of its loss at a given step.
//
// SFT is supervised fine-tuning from random weights: token NLL on the
// completion, batches of similar lengths (or questions on one database)
// packed without padding, and identifier-renaming augmentation, with a
// data order and augmentation drawn from the seed and the epoch so that a
// resumed run sees the same batches.
//
// RL after SFT samples from the policy (or reads offline rollouts),
// scores the samples with a reward, and applies one of the losses of
// package loss (KTO, DPO, ORPO, RLOO, GRPO, PPO) through policy's
// LogProbScorer, micro-batch by micro-batch. The losses themselves are pure
// math in package loss; the agents' training (validators, fixer,
// selector) is package agents/agenttrain, built on SFT and RL here.
//
// A run's settings are one grouped config per method (SFTConfig,
// RLConfig; config.go), which the commands bind flags to, package
// experiment hashes and the run records. Do runs one Job (SFT, RL or a
// final evaluation) on a benchmark directory: experiment's one entry
// point into this package.
package train
