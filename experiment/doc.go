// Package experiment runs the OKTO recipe's studies (algorithms, holdout,
// augmentation, reward, final) as one resumable experiment and reports
// them by difficulty, with the seeds' spread, on every dev split of the
// benchmark (`sqlrl experiment okto`).
//
// An experiment is a plan of runs: SFT runs, RL runs that start from an
// SFT run, and final evaluations of each model on each split. A run's
// directory is named by a hash of its canonical config (RunConfig.ID), whose
// parent's ID is part of it, so that a run shared by several studies (the
// SFT-75 start, the recipe's online KTO) is trained once, a rerun of the
// same experiment skips every finished run (result.json) and resumes the
// unfinished one from its checkpoints, and a changed setting redoes exactly
// the runs that depend on it.
//
// The work itself is behind Trainer: InProcess runs package train in process;
// tests use a fake. The report (report.md, report.json, SVG plots drawn by
// hand) is rebuilt from the results at the end of every invocation, and
// its claim checks are computed from the tables, never written in advance:
// where this experiment's numbers differ from the recipe's, it says so.
//
// A pre-registered study (ExecuteStudy, `sqlrl experiment study`) runs
// the same plans from a committed config (StudyConfig), records the
// config's hash at its first start, evaluates on the sealed test split
// only with -final-test (counting each read), and applies the config's
// decision rule with package significance's statistics
// (docs/results.md "Protocol").
//
// The presets' sizes and their arithmetic are in Quick and Full.
package experiment
