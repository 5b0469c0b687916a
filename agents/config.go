package agents

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Backends resolves agent specs ("runs/sft", "http://host:8000/v1#model")
// to agents, loading each native checkpoint once, and writes the prompts
// every agent set reads.
type Backends struct {
	// Remote builds a remote backend from a URL spec; nil refuses them.
	Remote func(spec string) (policy.Generator, error)
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

// Sampling is how candidates are sampled beside the greedy decode. Every
// command that samples declares its flags through Flags, each with its own
// defaults (generate decodes greedily by default, a pipeline samples).
type Sampling struct {
	Temperature float64
	TopP        float64
	Seed        uint64
}

// Flags declares -temperature, -top-p and -seed on fs, defaulting to s.
func (s *Sampling) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&s.Temperature, "temperature", s.Temperature, "sampling temperature (0: greedy)")
	fs.Float64Var(&s.TopP, "top-p", s.TopP, "nucleus sampling mass")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "sampling seed")
}

// Valid reports whether the temperature is not negative and top-p is in
// (0, 1].
func (s Sampling) Valid() bool { return s.Temperature >= 0 && s.TopP > 0 && s.TopP <= 1 }

// RunConfig is a pipeline run's settings: its agents, the planner's
// sampling, the selection, and how remote agents are reached. Flags binds
// them to a command's flags; Pipeline builds the pipeline they describe.
type RunConfig struct {
	// Planner, Validator, Fixer and Selector are agent specs (a native
	// checkpoint or URL#MODEL); only Planner is required.
	Planner, Validator, Fixer, Selector string
	// Reviewer is a reviewer checkpoint; ReviewWeight the review
	// strategy's weight (Selection.ReviewWeight).
	Reviewer     string
	ReviewWeight float64
	// Ranker is a learned ranker file, added as a strategy.
	Ranker string
	// K candidates: a greedy decode and K-1 samples.
	K int
	Sampling
	Guide      bool
	FixWhen    string
	Final      string
	Tournament int
	// Templates is a folder of edited templates; Reuse an earlier
	// rollout file whose planner candidates are taken.
	Templates, Reuse string
	// APIKey, RemoteTimeout and RemoteAPI ("chat" or "completions") reach
	// remote agents; NativePrompts is the checkpoint whose prompt format
	// native prompts follow when no native agent is loaded.
	APIKey        string
	RemoteTimeout time.Duration
	RemoteAPI     string
	NativePrompts string
}

// DefaultRunConfig is `sqlrl pipeline run`'s defaults.
func DefaultRunConfig() RunConfig {
	return RunConfig{ReviewWeight: DefaultReviewWeight, K: 8, Sampling: Sampling{Temperature: 1, TopP: 0.9, Seed: 1}, Guide: true,
		FixWhen: FixIncorrect, Tournament: 4, APIKey: os.Getenv("OPENAI_API_KEY"), RemoteTimeout: 2 * time.Minute, RemoteAPI: "chat"}
}

// Flags declares the settings' flags on fs, defaulting to c.
func (c *RunConfig) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Planner, "planner", c.Planner, "planner agent (required)")
	fs.StringVar(&c.Validator, "validator", c.Validator, "validator agent (empty: none)")
	fs.StringVar(&c.Fixer, "fixer", c.Fixer, "fixer agent (empty: none)")
	fs.StringVar(&c.Selector, "selector", c.Selector, "selector agent (empty: no tournament)")
	fs.StringVar(&c.Reviewer, "reviewer", c.Reviewer, "reviewer checkpoint (sqlrl train sft -task review): scores each candidate by log P(question | SQL) (empty: none)")
	fs.Float64Var(&c.ReviewWeight, "review-weight", c.ReviewWeight, "review strategy: weight w of the planner's log P(SQL | question) beside the reviewer's log P(question | SQL) (0: the reviewer alone)")
	fs.StringVar(&c.Ranker, "ranker", c.Ranker, "learned ranker (sqlrl pipeline train-ranker) to add as a strategy")
	fs.IntVar(&c.K, "k", c.K, "candidates per question (1 greedy + k-1 samples)")
	c.Sampling.Flags(fs)
	fs.BoolVar(&c.Guide, "guide", c.Guide, "keep native SQL to the schema (sqlparse.Guide)")
	fs.StringVar(&c.FixWhen, "fix-when", c.FixWhen, "fix candidates that failed (failed) or also those a validator rejected (incorrect)")
	fs.StringVar(&c.Final, "final", c.Final, "strategy whose choice is the answer (default: review, tournament, validator_vote or vote, by the agents given)")
	fs.IntVar(&c.Tournament, "tournament", c.Tournament, "distinct results the selector compares")
	fs.StringVar(&c.Templates, "prompts", c.Templates, "folder of edited templates (native/*.tmpl, chat/*.tmpl)")
	fs.StringVar(&c.Reuse, "reuse", c.Reuse, "take the planner's candidates from this earlier rollout file instead of decoding them")
	fs.StringVar(&c.APIKey, "api-key", c.APIKey, "API key of remote agents ($OPENAI_API_KEY)")
	fs.DurationVar(&c.RemoteTimeout, "remote-timeout", c.RemoteTimeout, "time limit of one remote call")
	fs.StringVar(&c.RemoteAPI, "remote-api", c.RemoteAPI, "remote agents' API: chat (a chat model, chat templates) or completions (a native checkpoint served by 'sqlrl serve-model', native templates)")
	fs.StringVar(&c.NativePrompts, "native-prompts", c.NativePrompts, "with -remote-api completions and no native agent: the served checkpoint, whose prompt format native prompts are written in")
}

// Check refuses settings out of range, naming the flag.
func (c *RunConfig) Check() error {
	switch {
	case c.K < 1 || !c.Sampling.Valid():
		return errors.New("want -k >= 1, -temperature >= 0 and 0 < -top-p <= 1")
	case c.FixWhen != FixFailed && c.FixWhen != FixIncorrect:
		return fmt.Errorf("-fix-when %q: want failed or incorrect", c.FixWhen)
	case c.RemoteAPI != "chat" && c.RemoteAPI != "completions":
		return fmt.Errorf("-remote-api %q: want chat or completions", c.RemoteAPI)
	case c.Final != "" && !slices.Contains(Strategies, c.Final):
		return fmt.Errorf("-final %q: want one of %s", c.Final, strings.Join(Strategies, ", "))
	}
	return nil
}

// Pipeline loads the agents, reviewer, ranker and reused candidates the
// settings name, and writes every prompt the agents read for exs, whose
// databases eng runs (and dbRoot holds).
func (c *RunConfig) Pipeline(ctx context.Context, eng sqlexec.Engine, dbRoot string, exs []dataset.Example) (*Pipeline, Prompts, error) {
	be := &Backends{TemplateDir: c.Templates, NativePrompts: c.NativePrompts, Remote: func(spec string) (policy.Generator, error) {
		return remoteAgent(spec, c.APIKey, c.RemoteTimeout, c.RemoteAPI == "chat")
	}}
	if c.RemoteAPI == "completions" {
		be.RemoteSet = SetNative
	}
	p := &Pipeline{K: c.K, Sampling: c.Sampling, Guide: c.Guide, FixWhen: c.FixWhen, Final: c.Final,
		TournamentSize: c.Tournament, ReviewWeight: c.ReviewWeight}
	sets, err := c.loadAgents(be, p)
	if err != nil {
		return nil, nil, err
	}
	if c.Ranker != "" {
		if p.Ranker, err = LoadRanker(c.Ranker); err != nil {
			return nil, nil, err
		}
	}
	if np := be.Native(); np != nil {
		p.Words = np.Info.SQLWords
	}
	if c.Reuse != "" {
		old, err := ReadRecords(c.Reuse)
		if err != nil {
			return nil, nil, err
		}
		p.Reuse = map[int]*Record{}
		for _, r := range old {
			p.Reuse[r.QuestionID] = r
		}
	}
	p.Engine = eng
	p.Scorer = &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout, CachePredictions: true, KeepResults: true}
	fits, err := be.Prompts(ctx, eng, dbRoot, exs, sets, p.Planner.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	return p, fits, nil
}

// loadAgents sets p's agents and reviewer and returns the template sets
// they read.
func (c *RunConfig) loadAgents(be *Backends, p *Pipeline) (map[string]bool, error) {
	sets := map[string]bool{}
	for _, x := range []struct {
		role, spec string
		dst        **Agent
	}{{RolePlanner, c.Planner, &p.Planner}, {RoleValidator, c.Validator, &p.Validator}, {RoleFixer, c.Fixer, &p.Fixer}, {RoleSelector, c.Selector, &p.Selector}} {
		if x.spec == "" {
			continue
		}
		a, err := be.Agent(x.role, x.spec, 0)
		if err != nil {
			return nil, err
		}
		*x.dst = a
		sets[a.Set] = true
	}
	if c.Reviewer != "" {
		var err error
		if p.Reviewer, err = be.Reviewer(c.Reviewer); err != nil {
			return nil, err
		}
		sets[SetNative] = true
	}
	return sets, nil
}

// remoteAgent builds a remote backend from URL#MODEL.
func remoteAgent(spec, key string, timeout time.Duration, chat bool) (policy.Generator, error) {
	base, model, _ := strings.Cut(spec, "#")
	if _, err := url.ParseRequestURI(base); err != nil {
		return nil, fmt.Errorf("bad URL: %w", err)
	}
	return &Remote{Chat: chat, Client: &llmclient.Client{BaseURL: strings.TrimSuffix(base, "/"), Model: model, APIKey: key, Timeout: timeout, Retries: 2}}, nil
}

// WriteStrategyPredictions writes, per strategy, sqlrl's JSONL predictions
// of the candidates it chose (dir/<strategy>.jsonl), for `sqlrl eval` to
// check a report.
func WriteStrategyPredictions(dir string, recs []*Record) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	strategies := map[string]bool{}
	for _, r := range recs {
		for s := range r.Selected {
			strategies[s] = true
		}
	}
	for s := range strategies {
		preds := make([]dataset.Prediction, len(recs))
		for i, r := range recs {
			preds[i] = dataset.Prediction{QuestionID: r.QuestionID, DBID: r.DBID}
			if j, ok := r.Selected[s]; ok && j >= 0 {
				preds[i].SQL = r.Candidates[j].SQL
			}
		}
		if err := dataset.WriteJSONLPredictions(filepath.Join(dir, s+".jsonl"), preds); err != nil {
			return err
		}
	}
	return nil
}

// Shares lists each stage's seconds and share of el, in stage order
// ("planner 1.2s (60%), ...").
func (t Timing) Shares(el time.Duration) string {
	var parts []string
	for _, s := range Stages {
		if v, ok := t[s]; ok {
			parts = append(parts, fmt.Sprintf("%s %.1fs (%.0f%%)", s, v, 100*v/el.Seconds()))
		}
	}
	return strings.Join(parts, ", ")
}
