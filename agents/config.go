package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Backends resolves agent specs ("runs/sft", "http://host:8000/v1#model")
// to agents, loading each native checkpoint once, and writes the prompts
// every agent set reads.
type Backends struct {
	// Remote builds a remote backend from a URL spec; nil refuses them.
	Remote func(spec string) (Generator, error)
	// RemoteSet is the template set remote agents read: SetChat (the
	// default: a chat model answering in the recipe's formats) or
	// SetNative (a server of a native checkpoint, `sqlrl serve-model`,
	// over /v1/completions: the native prompts, guided by the server).
	RemoteSet string
	// NativePrompts, when set, is the checkpoint whose prompt format and context
	// native prompts are written for when no native agent is loaded
	// (remote agents reading native prompts).
	NativePrompts string
	// Templates is the folder of edited templates (LoadTemplates).
	TemplateDir string

	native map[string]*policy.Policy
	// planner is the native policy whose prompt format and context the
	// native prompts are written for: the first native agent loaded.
	first *policy.Policy
}

// IsRemote says whether spec names a server rather than a checkpoint.
func IsRemote(spec string) bool {
	return strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://")
}

// Agent returns the agent playing role per spec: a native checkpoint
// directory (or training run directory) or, with a Remote builder, an
// OpenAI-compatible server URL. maxTokens 0 keeps the role's default.
func (b *Backends) Agent(role, spec string, maxTokens int) (*Agent, error) {
	if b.native == nil {
		b.native = map[string]*policy.Policy{}
	}
	a := &Agent{Role: role, MaxTokens: maxTokens}
	if IsRemote(spec) {
		if b.Remote == nil {
			return nil, fmt.Errorf("%s %s: remote backends are not available here", role, spec)
		}
		g, err := b.Remote(spec)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", role, spec, err)
		}
		a.Gen, a.Set = g, SetChat
		if b.RemoteSet == SetNative {
			a.Set = SetNative
			if err := b.loadFirst(); err != nil {
				return nil, fmt.Errorf("%s %s: %w", role, spec, err)
			}
			a.Room = room(b.first)
		}
		if a.MaxTokens == 0 {
			a.MaxTokens = 1024
			if a.Set == SetNative {
				a.MaxTokens = nativeMax[role]
			}
		}
	} else {
		p, ok := b.native[spec]
		if !ok {
			var err error
			if p, err = policy.LoadSQL(spec); err != nil {
				return nil, fmt.Errorf("%s: %w", role, err)
			}
			if err := b.share(p); err != nil {
				return nil, fmt.Errorf("%s %s: %w", role, spec, err)
			}
			b.native[spec] = p
		}
		a.Gen, a.Set = p, SetNative
		a.Room = room(p)
		if a.MaxTokens == 0 {
			a.MaxTokens = nativeMax[role]
		}
	}
	ts, err := LoadTemplates(a.Set, b.TemplateDir)
	if err != nil {
		return nil, err
	}
	a.Templates = ts
	return a, nil
}

// Reviewer loads the reviewer checkpoint at spec (`sqlrl train sft -task
// review`): a native model only, since it scores texts rather than
// writing them, sharing the native agents' prompt format and context (it
// reads their prompts).
func (b *Backends) Reviewer(spec string) (Reviewer, error) {
	if IsRemote(spec) {
		return nil, fmt.Errorf("reviewer %s: the reviewer scores with a native checkpoint; remote servers do not report the log-probability of a given text", spec)
	}
	p, err := policy.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("reviewer: %w", err)
	}
	if p.Info.Task != policy.TaskReview {
		return nil, fmt.Errorf("reviewer %s: a checkpoint trained to write SQL, not questions (train one with sqlrl train sft -task review)", spec)
	}
	if err := b.share(p); err != nil {
		return nil, fmt.Errorf("reviewer %s: %w (train it from the planner: -init)", spec, err)
	}
	return p, nil
}

// share makes p one of the native models that read one prompt per
// question: the first loaded sets the prompt format and context, and every
// later one must have the same.
func (b *Backends) share(p *policy.Policy) error {
	if b.first == nil {
		b.first = p
		return nil
	}
	if b.first.Info.Prompt != p.Info.Prompt || b.first.Model.Cfg.MaxSeq != p.Model.Cfg.MaxSeq {
		return fmt.Errorf("prompt format or context differs from the first native agent's: native agents share one prompt per question")
	}
	return nil
}

// room counts what a prompt leaves of p's context, as Generate encodes it.
func room(p *policy.Policy) func(string) int {
	ctxLen := p.Model.Cfg.MaxSeq
	return func(s string) int { return ctxLen - len(p.Tok.Encode(s)) - 1 }
}

// nativeMax is each role's answer budget on the native model.
var nativeMax = map[string]int{RolePlanner: 256, RoleValidator: 64, RoleFixer: 256, RoleSelector: 4}

// loadFirst loads NativePrompts as the policy native prompts are written
// for, unless a native agent already is.
func (b *Backends) loadFirst() error {
	if b.first != nil {
		return nil
	}
	if b.NativePrompts == "" {
		return fmt.Errorf("remote agents reading native prompts need a native checkpoint to write them for (its tokenizer and context)")
	}
	p, err := policy.Load(b.NativePrompts)
	if err != nil {
		return err
	}
	b.first = p
	return nil
}

// Native returns the first native policy loaded (nil when none): its
// prompt format, context and SQL words are the native prompts'.
func (b *Backends) Native() *policy.Policy { return b.first }

// ChatContext is the prompt budget, in approximate tokens, of the plain
// prompts remote agents read: room for BIRD's largest schemas in the
// context of today's open 7B-32B models.
const ChatContext = 16384

// Prompts fits the questions' prompts for every set an agent reads: the
// native policy's format and context (leaving planMax tokens for the
// planner's answer) and, when a remote agent is used, package prompt's
// plain form. dbRoot holds BIRD's database_description folders.
func (b *Backends) Prompts(ctx context.Context, eng sqlexec.Engine, dbRoot string, exs []dataset.Example, sets map[string]bool, planMax int) (Prompts, error) {
	out := Prompts{}
	if sets[SetNative] {
		p := b.first
		if p == nil {
			return nil, fmt.Errorf("agents: native prompts need a native agent")
		}
		pr, err := policy.NewPrompter(eng, dbRoot, p.Info.Prompt)
		if err != nil {
			return nil, err
		}
		if out[SetNative], err = pr.FitAll(ctx, exs, p.FitOptions(planMax)); err != nil {
			return nil, err
		}
	}
	if sets[SetChat] {
		pr, err := policy.NewPrompter(eng, dbRoot, policy.Format{Kind: policy.FormatText})
		if err != nil {
			return nil, err
		}
		if out[SetChat], err = pr.FitAll(ctx, exs, policy.FitOptions{Context: ChatContext, MaxTokens: 1024, Counter: prompt.Approx{}}); err != nil {
			return nil, err
		}
	}
	return out, nil
}
