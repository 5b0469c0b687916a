// Package export writes training sets for the trainers sqlrl's recipes run
// on: TRL (SFT, KTO, DPO/ORPO, GRPO), OpenRLHF (SFT, DPO, KTO, PPO with a
// remote reward server) and verl. Each format is one JSONL file, one record a
// line, with exactly the field names that trainer reads, documented in
// docs/training-formats.md.
//
// Prepare is the whole `sqlrl data prepare` pipeline: it splits a benchmark
// for the OKTO recipe (SFT 75% / RLHF holdout 25%, stratified), augments the
// holdout by shuffling schema tables, writes prompts for every question and
// the exports above, and a manifest with the counts and checksums.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/prompt"
)

// Record is one line of sft.jsonl, holdout.jsonl and holdout_aug.jsonl:
// BIRD's question fields, the prompt in both forms, and what the prompt
// shows. These are sqlrl's own files; the trainer files below derive from
// them.
type Record struct {
	dataset.Record
	// Prompt is the plain form; Messages the chat form with the gold SQL as
	// the assistant's answer.
	Prompt   string           `json:"prompt"`
	Messages []prompt.Message `json:"messages"`
	// Tables are the schema's tables in prompt order; Pruned those left out
	// to fit the token budget.
	Tables       []string `json:"tables"`
	Pruned       []string `json:"pruned,omitempty"`
	PromptTokens int      `json:"prompt_tokens"`
	// Variant and Permutation are set in holdout_aug.jsonl only: variant 0
	// is the original order.
	Variant     *int                 `json:"variant,omitempty"`
	Permutation *dataset.Permutation `json:"permutation,omitempty"`

	p *prompt.Prompt
}

// newRecord makes the record of ex without its prompt text: a prompt is
// rendered only while it is written (rendered), so a run over BIRD train
// holds block references, not gigabytes of strings.
func newRecord(ex dataset.Example, p *prompt.Prompt) Record {
	return Record{
		Record: dataset.Record{QuestionID: ex.QuestionID, DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence,
			SQL: ex.SQL, Difficulty: ex.Difficulty},
		Tables: p.Tables(), Pruned: p.Pruned, PromptTokens: p.Tokens,
		p: p,
	}
}

// rendered returns r with its prompt text filled in.
func (r *Record) rendered() Record {
	c := *r
	c.Prompt, c.Messages = r.p.Plain(), r.p.Conversation(r.SQL)
	return c
}

// TRLSFT is TRL's prompt-completion SFT format: the loss covers the
// completion only.
type TRLSFT struct {
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
}

// TRLSFTChat is TRL's conversational prompt-completion SFT format: the chat
// template is applied and the loss covers the assistant's answer only, the
// usual choice for an instruction model.
type TRLSFTChat struct {
	Prompt     []prompt.Message `json:"prompt"`
	Completion []prompt.Message `json:"completion"`
}

// TRLSFTMessages is TRL's conversational SFT format (also OpenRLHF's
// train_sft with --input_key messages --apply_chat_template: the last
// message is the response).
type TRLSFTMessages struct {
	Messages []prompt.Message `json:"messages"`
}

// TRLPromptOnly is a conversational prompt-only record for TRL's GRPO/RLOO
// and online DPO. TRL hands the extra columns to reward functions as keyword
// arguments, so a reward sees db_id and gold_sql next to each completion.
type TRLPromptOnly struct {
	Prompt     []prompt.Message `json:"prompt"`
	DBID       string           `json:"db_id"`
	GoldSQL    string           `json:"gold_sql"`
	QuestionID int              `json:"question_id"`
	Variant    int              `json:"variant"`
}

// RewardLabel is what the reward server needs to score a completion; it
// travels through OpenRLHF as the label string.
type RewardLabel struct {
	DBID    string `json:"db_id"`
	GoldSQL string `json:"gold_sql"`
}

// OpenRLHFPrompt is a prompt for OpenRLHF's PPO/GRPO/REINFORCE trainers
// (train_ppo_ray). Prompt is the plain form (--input_key prompt) and
// Messages the chat form (--input_key messages --apply_chat_template);
// Label (--label_key label) is the JSON text of a RewardLabel, which
// OpenRLHF passes verbatim in the "labels" field of its POST to
// --remote_rm_url.
type OpenRLHFPrompt struct {
	Prompt   string           `json:"prompt"`
	Messages []prompt.Message `json:"messages"`
	Label    string           `json:"label"`
}

// VerlPrompt is verl's RL dataset row (verl reads parquet; convert this
// JSONL with pandas or datasets). reward_model.ground_truth and extra_info
// reach a custom compute_score(data_source, solution_str, ground_truth,
// extra_info).
type VerlPrompt struct {
	DataSource  string           `json:"data_source"`
	Prompt      []prompt.Message `json:"prompt"`
	Ability     string           `json:"ability"`
	RewardModel VerlRewardModel  `json:"reward_model"`
	ExtraInfo   VerlExtraInfo    `json:"extra_info"`
}

// VerlRewardModel is verl's reward_model column.
type VerlRewardModel struct {
	Style       string `json:"style"`
	GroundTruth string `json:"ground_truth"`
}

// VerlExtraInfo is verl's extra_info column as sqlrl fills it.
type VerlExtraInfo struct {
	DBID       string `json:"db_id"`
	QuestionID int    `json:"question_id"`
	Variant    int    `json:"variant"`
}

// TRLKTO is TRL's unpaired preference format (KTOTrainer, `trl kto`).
type TRLKTO struct {
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
	Label      bool   `json:"label"`
}

// TRLKTOChat is TRL's conversational unpaired preference format.
type TRLKTOChat struct {
	Prompt     []prompt.Message `json:"prompt"`
	Completion []prompt.Message `json:"completion"`
	Label      bool             `json:"label"`
}

// OpenRLHFKTO is a record for OpenRLHF's train_kto, which reads the whole
// sequence from --output_key (prompt and completion together): Messages
// with --apply_chat_template, Text without.
type OpenRLHFKTO struct {
	Messages []prompt.Message `json:"messages"`
	Text     string           `json:"text"`
	Label    bool             `json:"label"`
}

// TRLDPO is TRL's explicit-prompt preference format (DPO, ORPO, `trl dpo`),
// also read by OpenRLHF's train_dpo (--prompt_key prompt).
type TRLDPO struct {
	Prompt   string `json:"prompt"`
	Chosen   string `json:"chosen"`
	Rejected string `json:"rejected"`
}

// TRLDPOChat is the conversational preference format, read by TRL and by
// OpenRLHF's train_dpo with --apply_chat_template.
type TRLDPOChat struct {
	Prompt   []prompt.Message `json:"prompt"`
	Chosen   []prompt.Message `json:"chosen"`
	Rejected []prompt.Message `json:"rejected"`
}

func assistant(s string) []prompt.Message {
	return []prompt.Message{{Role: "assistant", Content: s}}
}

func variantOf(r *Record) int {
	if r.Variant == nil {
		return 0
	}
	return *r.Variant
}

func sftRecord(r *Record) TRLSFT { return TRLSFT{Prompt: r.p.Plain(), Completion: r.SQL} }

func sftChat(r *Record) TRLSFTChat {
	return TRLSFTChat{Prompt: r.p.Messages(), Completion: assistant(r.SQL)}
}

func sftMessages(r *Record) TRLSFTMessages { return TRLSFTMessages{Messages: r.p.Conversation(r.SQL)} }

func promptOnly(r *Record) TRLPromptOnly {
	return TRLPromptOnly{Prompt: r.p.Messages(), DBID: r.DBID, GoldSQL: r.SQL, QuestionID: r.QuestionID, Variant: variantOf(r)}
}

func openRLHFPrompt(r *Record) (OpenRLHFPrompt, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<" in SQL readable for the reward server's logs
	if err := enc.Encode(RewardLabel{DBID: r.DBID, GoldSQL: r.SQL}); err != nil {
		return OpenRLHFPrompt{}, fmt.Errorf("question %d: reward label: %w", r.QuestionID, err)
	}
	label := strings.TrimSuffix(buf.String(), "\n")
	return OpenRLHFPrompt{Prompt: r.p.Plain(), Messages: r.p.Messages(), Label: label}, nil
}

func verlPrompt(r *Record, dataSource string) VerlPrompt {
	return VerlPrompt{
		DataSource:  dataSource,
		Prompt:      r.p.Messages(),
		Ability:     "text2sql",
		RewardModel: VerlRewardModel{Style: "rule", GroundTruth: r.SQL},
		ExtraInfo:   VerlExtraInfo{DBID: r.DBID, QuestionID: r.QuestionID, Variant: variantOf(r)},
	}
}
