package rewardserver

import (
	"regexp"
	"strings"
)

// ResponseOf returns the response part of an OpenRLHF query (prompt +
// response, decoded with special tokens kept). ok is false when the prompt
// could not be located and a heuristic cut was used instead.
//
// OpenRLHF decodes left-padded sequences without skipping special tokens,
// so the query may start with pad tokens ("<|endoftext|>" repeated) before
// the prompt, and detokenizing may not reproduce the prompt byte for byte.
// In order:
//
//  1. query starts with prompt: the rest;
//  2. prompt occurs in query (after padding): what follows its first
//     occurrence;
//  3. the same after removing special tokens and whitespace differences at
//     the start of both;
//  4. otherwise, or with no prompt at all, what follows the last
//     assistant-turn marker of a chat template (<|im_start|>assistant,
//     <|start_header_id|>assistant<|end_header_id|>, [/INST],
//     <start_of_turn>model, "### Response:"); failing that the whole query
//     (ExtractSQL then takes the last SQL block, which in a prompt+response
//     is the response's).
func ResponseOf(query, prompt string) (string, bool) {
	if prompt != "" {
		if strings.HasPrefix(query, prompt) {
			return query[len(prompt):], true
		}
		if i := strings.Index(query, prompt); i >= 0 {
			return query[i+len(prompt):], true
		}
		q, p := stripLeading(query), stripLeading(prompt)
		if p != "" {
			if i := strings.Index(q, p); i >= 0 {
				return q[i+len(p):], true
			}
		}
	}
	if i, n := lastTurn(query); i >= 0 {
		return query[i+n:], prompt == ""
	}
	return query, prompt == ""
}

// leadingSpecial matches special tokens and whitespace at the start of a
// text: left padding and BOS tokens.
var leadingSpecial = regexp.MustCompile(`^(?:\s|<\|[A-Za-z0-9_]+\|>|<s>|<pad>|<bos>|</s>)+`)

func stripLeading(s string) string {
	if m := leadingSpecial.FindStringIndex(s); m != nil {
		return s[m[1]:]
	}
	return s
}

// assistantTurn matches the start of an assistant turn in the common chat
// templates (ChatML/Qwen, Llama 3, Llama 2/Mistral, Gemma, Alpaca).
var assistantTurn = regexp.MustCompile(`<\|im_start\|>assistant\s*|<\|start_header_id\|>assistant<\|end_header_id\|>\s*|\[/INST\]\s*|<start_of_turn>model\s*|### Response:\s*|<\|assistant\|>\s*`)

// lastTurn returns the offset and length of the last assistant-turn marker.
func lastTurn(s string) (int, int) {
	locs := assistantTurn.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return -1, 0
	}
	l := locs[len(locs)-1]
	return l[0], l[1] - l[0]
}
