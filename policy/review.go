package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/textclip"
)

// TaskReview marks a checkpoint (Info.Task) trained to read a query and
// write the question it answers: the reviewer, which scores a planner's
// candidates by log P(question | schema, evidence, SQL). A planner's
// Task is empty.
//
// Why: the planner's own probability P(SQL | question) favours the
// queries it writes most fluently, and the execution vote favours the
// result most samples agree on; both miss a minority candidate whose
// filter is the one the question states. The reverse direction asks
// whether the query accounts for every word of the question, a signal
// the forward model and the vote do not carry (Zhang et al., 2022,
// "Coder-Reviewer Reranking for Code Generation").
const TaskReview = "review"

// ReviewCue ends a reviewer prompt; the question follows it.
const ReviewCue = "\nquestion: "

// ReviewPrompt turns a planner's compact prompt (Format.Compact, with or
// without its cue) into the reviewer's: the same schema lines and
// evidence, then the query, then the cue for the question.
//
//	client: client_id integer key, ...
//	evidence: silver-tier refers to loyalty_level = 'silver'
//	SQL: SELECT COUNT(*) FROM client WHERE loyalty_level = 'silver'
//	question:
//
// The question itself is what the reviewer is scored on (ReviewCompletion).
func ReviewPrompt(prompt, sql string) (string, error) {
	prompt = strings.TrimSuffix(prompt, CompactCue)
	k := SchemaEnd(prompt)
	rest := prompt[k:]
	if !strings.HasPrefix(rest, "question: ") {
		return "", fmt.Errorf("policy: review prompt: no question line after the schema in %q", textclip.Clip(prompt, 80))
	}
	var b strings.Builder
	b.WriteString(prompt[:k])
	if _, ev, ok := strings.Cut(rest, "\nevidence: "); ok {
		b.WriteString("evidence: ")
		b.WriteString(oneLine(ev))
		b.WriteString("\n")
	}
	b.WriteString("SQL: ")
	b.WriteString(oneLine(sql))
	b.WriteString(ReviewCue)
	return b.String(), nil
}

// ReviewCompletion is the question as the reviewer writes it: on one line,
// as the planner's prompt shows it.
func ReviewCompletion(question string) string { return oneLine(question) }

// SchemaEnd returns where the schema lines of a compact prompt (a
// planner's or a reviewer's) end: the start of the first line that is the
// question, the evidence or the query; len(prompt) when there is none.
// Prompts on one database share everything before it.
func SchemaEnd(prompt string) int {
	for k := 0; k < len(prompt); {
		line := prompt[k:]
		if strings.HasPrefix(line, "question: ") || strings.HasPrefix(line, "evidence: ") || strings.HasPrefix(line, "SQL: ") {
			return k
		}
		nl := strings.IndexByte(line, '\n')
		if nl < 0 {
			break
		}
		k += nl + 1
	}
	return len(prompt)
}

// SchemaTokens returns how many of seq's tokens are the schema lines of
// its compact prompt (SchemaEnd), to be computed once for every sequence
// on the same schema (Sequence.Shared); 0 when there are none or the
// prompt's tokens do not start with the schema's own (a token spanning
// the boundary). cache keeps each schema text's tokens.
func (p *Policy) SchemaTokens(prompt string, seq Sequence, cache map[string][]int32) int {
	k := SchemaEnd(prompt)
	if k == 0 || k == len(prompt) {
		return 0
	}
	st, ok := cache[prompt[:k]]
	if !ok {
		st = p.Tok.Encode(prompt[:k])
		cache[prompt[:k]] = st
	}
	if len(st) >= seq.PromptLen || !slices.Equal(st, seq.Tokens[:len(st)]) {
		return 0
	}
	return len(st)
}

// CompletionLogProbs scores each completion after its prompt (teacher
// forcing: log P(completion, end token | prompt)), in batches of up to 16
// sequences. Consecutive prompts that start with the same schema lines
// (SchemaEnd) compute them once. A pair longer than the model's context
// gets Tokens 0 and no score. It only reads the model.
func (p *Policy) CompletionLogProbs(ctx context.Context, prompts, completions []string) ([]SeqLogProb, error) {
	if len(prompts) != len(completions) {
		return nil, fmt.Errorf("policy: %d prompts for %d completions", len(prompts), len(completions))
	}
	const batch = 16
	out := make([]SeqLogProb, len(prompts))
	sc := NewLogProbScorer(p.Model)
	maxT := p.Model.Cfg.MaxSeq
	var seqs []Sequence
	var idx []int
	flush := func() error {
		if len(seqs) == 0 {
			return nil
		}
		lps, err := sc.LogProbs(seqs)
		if err != nil {
			return err
		}
		for j, lp := range lps {
			out[idx[j]] = lp
		}
		seqs, idx = seqs[:0], idx[:0]
		return nil
	}
	schemas := map[string][]int32{}
	for i := range prompts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := p.Sequence(prompts[i], completions[i])
		if len(q.Tokens) > maxT {
			continue
		}
		q.Shared = p.SchemaTokens(prompts[i], q, schemas)
		seqs, idx = append(seqs, q), append(idx, i)
		if len(seqs) == batch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}
