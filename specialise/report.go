package specialise

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/procstat"
)

// Report is report.json: what was trained on what, each stage's time, the
// synthetic dev split's EX by difficulty before and after KTO and, last,
// the human test's.
type Report struct {
	Command   string              `json:"command"`
	Databases []StampDB           `json:"databases"`
	Questions map[string]int      `json:"questions"`
	Preset    experiment.Preset   `json:"preset"`
	Stages    []Stage             `json:"stages"`
	Dev       []experiment.Change `json:"dev"`
	// Model is the served checkpoint's run directory, Served which model
	// it is ("kto", or "sft" when KTO lowered dev EX: chooseServed);
	// Serve the config.
	Model  string     `json:"model"`
	Served string     `json:"served,omitempty"`
	Serve  string     `json:"serve"`
	Human  *HumanTest `json:"human_test,omitempty"`
	// DevVote is the served model's synthetic dev EX answering by vote,
	// as serve.json answers (nil: greedy).
	DevVote *DevVote `json:"dev_vote,omitempty"`
	// GeneralDev is GeneralDevFile's content (nil without -general).
	GeneralDev *GeneralDev `json:"general_dev,omitempty"`
	// PeakRSS is the most resident memory any invocation of the command
	// held on this -out (procstat.PeakRSS; a resumed run keeps the
	// earlier invocations' peak), in bytes; 0 when unknown.
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
}

// sft100Stage is -sft100's SFT on all of train in the report: a stage of
// its own, so that the SFT row stays the served model's.
const sft100Stage = "SFT-100 (-sft100)"

// Stage is one stage's time, summed over its runs.
type Stage struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Steps   int64   `json:"steps,omitempty"`
}

func newReport(o Options, stamp *Stamp, fr *experiment.FlywheelReport, human *HumanTest, dv *DevVote) *Report {
	r := &Report{Command: o.Command, Databases: stamp.Databases, Questions: stamp.Counts, Preset: fr.Preset,
		Serve: filepath.Join(o.Out, ServeFile), Human: human, DevVote: dv}
	r.Stages = []Stage{{Name: "generate", Seconds: stamp.Seconds}, {Name: "SFT"}, {Name: sft100Stage}, {Name: "KTO"}, {Name: "evaluate (dev)"}}
	stageOf := map[string]string{experiment.KindSFT: "SFT", experiment.KindRL: "KTO", experiment.KindEval: "evaluate (dev)"}
	for _, s := range fr.Stages {
		name, ok := stageOf[s.Kind]
		if !ok {
			continue
		}
		if s.Kind == experiment.KindSFT && experiment.RunArm(s.Name) == experiment.ArmSFT100 {
			name = sft100Stage
		}
		i := slices.IndexFunc(r.Stages, func(st Stage) bool { return st.Name == name })
		r.Stages[i].Seconds += s.Seconds
		r.Stages[i].Steps += s.Steps
	}
	r.Stages = slices.DeleteFunc(r.Stages, func(st Stage) bool { return st.Name == sft100Stage && st.Seconds == 0 && st.Steps == 0 })
	if dv != nil {
		r.Stages = append(r.Stages, Stage{Name: "evaluate (dev, by vote)", Seconds: dv.Seconds})
	}
	if human != nil {
		r.Stages = append(r.Stages, Stage{Name: "human test", Seconds: human.Seconds})
	}
	for _, t := range fr.Tables {
		if t.Split == "dev" {
			r.Dev = t.Rows
		}
	}
	return r
}

// write writes report.json and report.md into dir, the peak memory the
// larger of this invocation's and the one an earlier report.json holds.
func (r *Report) write(dir string) error {
	r.PeakRSS = procstat.PeakRSS()
	var before Report
	if b, err := os.ReadFile(filepath.Join(dir, ReportJSON)); err == nil && json.Unmarshal(b, &before) == nil {
		r.PeakRSS = max(r.PeakRSS, before.PeakRSS)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ReportJSON), append(b, '\n')); err != nil {
		return fmt.Errorf("specialise: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ReportMD), r.Markdown()); err != nil {
		return fmt.Errorf("specialise: %w", err)
	}
	return nil
}

// Markdown is report.md.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	var ids []string
	for _, d := range r.Databases {
		ids = append(ids, d.DBID)
	}
	fmt.Fprintf(&b, "# A model specialised to %s\n\n", strings.Join(ids, ", "))
	fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	for _, d := range r.Databases {
		fmt.Fprintf(&b, "- database `%s`: %s (sha256 %s)\n", d.DBID, d.Path, d.SHA256[:12])
	}
	fmt.Fprintf(&b, "- generated questions: %s\n", counts(r.Questions))
	p := r.Preset
	model := p.SFT.Preset
	if p.SFT.Model != nil {
		model = fmt.Sprintf("%s at context %d", p.SFT.Preset, p.SFT.Model.MaxSeq)
	}
	if p.SFT.Values {
		model += ", values linked in prompts"
	}
	on := "75% of train"
	if p.SFT.General != "" {
		on = "75% of train and of the general questions"
		if p.SFT.GeneralEach > 0 {
			on = fmt.Sprintf("75%% of train and, each epoch, the next %d of a shuffle of 75%% of the general questions", p.SFT.GeneralEach)
		}
		if p.SFT.TokenizerOwn {
			on += " (tokenizer learnt from train alone)"
		}
	}
	fmt.Fprintf(&b, "- SFT: model %s, %d epochs on %s; online KTO on the other 25%% of train: %d steps of %d prompts x K=%d, reward %s\n\n",
		model, p.SFT.Epochs, on, p.RL.Steps, p.RL.Prompts, p.RL.K, p.RL.Reward.Kind)
	b.WriteString("## Stages\n\n| stage | steps | time |\n|---|---|---|\n")
	total := 0.0
	for _, s := range r.Stages {
		steps := ""
		if s.Steps > 0 {
			steps = fmt.Sprint(s.Steps)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.Name, steps, minutes(s.Seconds))
		total += s.Seconds
	}
	fmt.Fprintf(&b, "| total | | %s |\n\n", minutes(total))
	if r.PeakRSS > 0 {
		fmt.Fprintf(&b, "Peak resident memory: %.0f MiB.\n\n", float64(r.PeakRSS)/(1<<20))
	}
	b.WriteString("## Synthetic dev: EX by difficulty, before and after KTO\n\n")
	b.WriteString("Generated questions over the same databases, never trained on; the split settings are chosen on.\n\n")
	with100 := slices.ContainsFunc(r.Dev, func(c experiment.Change) bool { return c.SFT100 != nil })
	head, rule := "| difficulty | questions | SFT | SFT + KTO | change |", "|---|---|---|---|---|"
	if with100 {
		head, rule = head+" SFT-100 (-sft100: all of train, no KTO) |", rule+"---|"
	}
	b.WriteString(head + "\n" + rule + "\n")
	for _, c := range r.Dev {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %+.1f |", c.Level, c.Questions, c.Before.Mean, c.After.Mean, c.Delta)
		if with100 {
			if c.SFT100 != nil {
				fmt.Fprintf(&b, " %.1f |", c.SFT100.Mean)
			} else {
				b.WriteString(" - |")
			}
		}
		b.WriteString("\n")
	}
	if r.Served == "sft" {
		b.WriteString("\nKTO lowered the synthetic dev EX, so serve.json serves the SFT model.\n")
	}
	if dv := r.DevVote; dv != nil {
		fmt.Fprintf(&b, "\nThe served model answers by %s (serve.json's generator.vote):\n\n", dv.Vote)
		b.WriteString("| difficulty | questions | greedy | by vote |\n|---|---|---|---|\n")
		for _, c := range r.Dev {
			greedy := c.After.Mean
			if r.Served == "sft" {
				greedy = c.Before.Mean
			}
			v := 100 * dv.Eval.EX
			if c.Level != "total" {
				v = 100 * dv.Eval.Levels[c.Level]
			}
			fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f |\n", c.Level, c.Questions, greedy, v)
		}
	}
	fmt.Fprintf(&b, "\nServe it: `SQLRL_SERVE_KEY=$(openssl rand -hex 16) sqlrl serve -config %s`\n", r.Serve)
	if g := r.GeneralDev; g != nil {
		b.WriteString("\n## Human questions for choosing settings\n\n")
		fmt.Fprintf(&b, "%s holds %d human questions on %d other databases (%s) that SFT's split held out and KTO never draws (%d are held out in all), on their stand-ins under %s. Choose settings (decoding, feedback training) on them, not on a test:\n\n",
			g.File, g.Questions, len(g.Databases), strings.Join(g.Databases, ", "), g.HeldOut, g.DBRoot)
		fmt.Fprintf(&b, "    %s\n", g.Score)
	}
	if h := r.Human; h != nil {
		b.WriteString("\n## Human test: your questions, EX by difficulty\n\n")
		fmt.Fprintf(&b, "%s (sha256 %s), read %s in this folder (%s), never trained on", h.File, h.SHA256[:12], times(h.Reads), ReadsFile)
		if h.Skipped > 0 {
			fmt.Fprintf(&b, "; %d of its questions on other databases skipped", h.Skipped)
		}
		b.WriteString(".\n\n")
		cols := []string{"sft", "kto"}
		names := []string{"SFT", "SFT + KTO"}
		if r.Served == "sft" {
			names[0] += " (served)"
		} else {
			names[1] += " (served)"
		}
		if v := VoteKey(r.Served); h.Scores[v] != nil {
			cols, names = append(cols, v), append(names, "served, by vote")
		}
		fmt.Fprintf(&b, "| difficulty | questions | %s |\n|---|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
		first := h.Scores[cols[0]]
		for _, l := range experiment.Levels {
			n := first.Counts[l]
			if l == "total" {
				n = first.N
			} else if n == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d |", l, n)
			for _, c := range cols {
				ex := h.Scores[c].EX
				if l != "total" {
					ex = h.Scores[c].Levels[l]
				}
				fmt.Fprintf(&b, " %.1f |", 100*ex)
			}
			b.WriteString("\n")
		}
		if h.Vote.On() {
			fmt.Fprintf(&b, "\nServed, by vote: %s.\n", h.Vote)
		}
	}
	return b.Bytes()
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func minutes(s float64) string {
	if s < 60 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f min", s/60)
}
