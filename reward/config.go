package reward

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Kinds of reward that New builds, by name. The names are stable: they
// appear in flags (-reward), run configs and logs.
const (
	KindBinary     = "binary"      // executes: 1, else 0
	KindEX         = "ex"          // BIRD EX: 1, else 0
	KindArctic     = "arctic"      // 1 match / 0.1 executes / 0
	KindMATS       = "mats"        // 1 match / 0 wrong / -1 error
	KindJudge      = "judge"       // judge/50, judge sees both results
	KindJudgeBlind = "judge-blind" // judge/50, nothing executed (ablation)
	KindGate       = "gate"        // hybrid, RuleGate
	KindSum        = "sum"         // hybrid, RuleSum
)

// kindAliases are other spellings ParseKind accepts: "exec" is what
// `sqlrl train` called BIRD EX.
var kindAliases = map[string]string{"exec": KindEX}

// Kinds lists the reward kinds New accepts.
func Kinds() []string {
	return []string{KindBinary, KindEX, KindArctic, KindMATS, KindJudge, KindJudgeBlind, KindGate, KindSum}
}

// ParseKind returns the kind s names: one of Kinds() or an alias of one.
func ParseKind(s string) (string, error) {
	if k, ok := kindAliases[s]; ok {
		return k, nil
	}
	for _, k := range Kinds() {
		if k == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown reward %q (want one of %s; exec is ex)", s, strings.Join(Kinds(), ", "))
}

// Judges by name (JudgeConfig.Kind).
const (
	JudgeAnalytic = "analytic"
	JudgeLLM      = "llm"
)

// JudgeConfig chooses and configures the judge of the judge and hybrid
// kinds.
type JudgeConfig struct {
	// Kind is JudgeAnalytic (default) or JudgeLLM.
	Kind string `json:"kind,omitempty"`
	// URL (an OpenAI-compatible API root) and Model name the LLM judge;
	// Key is its API key (default $OPENAI_API_KEY), never recorded.
	URL   string `json:"url,omitempty"`
	Model string `json:"model,omitempty"`
	Key   string `json:"-"`
	// Timeout per attempt, Retries after the first, Concurrency of
	// requests in flight.
	Timeout     time.Duration `json:"timeout,omitempty"`
	Retries     int           `json:"retries,omitempty"`
	Concurrency int           `json:"concurrency,omitempty"`
	// Fallback, when the LLM judge fails: "analytic" (default), "error"
	// (the request fails) or fixed points 0..50.
	Fallback string `json:"fallback,omitempty"`
}

// New builds the judge c describes; its errors name the flags of
// Config.Flags.
func (c JudgeConfig) New() (Judge, error) {
	switch c.Kind {
	case "", JudgeAnalytic:
		return Analytic{}, nil
	case JudgeLLM:
	default:
		return nil, fmt.Errorf("-judge %q: want %s or %s", c.Kind, JudgeAnalytic, JudgeLLM)
	}
	if c.URL == "" || c.Model == "" {
		return nil, fmt.Errorf("-judge llm needs -judge-url (or $OPENAI_BASE_URL) and -judge-model")
	}
	key := c.Key
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	j := NewLLMJudge(c.URL, c.Model, key)
	j.Timeout, j.Retries, j.MaxConcurrent = c.Timeout, c.Retries, c.Concurrency
	switch fb := c.Fallback; fb {
	case "", JudgeAnalytic:
	case "error":
		j.Fallback = nil
	default:
		p, err := strconv.ParseFloat(fb, 64)
		if err != nil || p < 0 || p > MaxPoints {
			return nil, fmt.Errorf("-judge-fallback %q: want analytic, error or points 0..50", fb)
		}
		j.Fallback = FixedGrade(p)
	}
	return j, nil
}

// Config describes a reward: what a trainer's run records and the reward
// server serves.
type Config struct {
	// Kind is one of Kinds().
	Kind string `json:"kind"`
	// Judge, when set, is the judge of the judge and hybrid kinds;
	// otherwise Judging builds it.
	Judge   Judge       `json:"-"`
	Judging JudgeConfig `json:"judge,omitzero"`
	// ErrorValue: gate's reward for an error.
	ErrorValue float64 `json:"error_value"`
	// Scheme, WExec, WJudge: the sum rule (see Hybrid).
	Scheme Scheme  `json:"exec_scheme,omitempty"`
	WExec  float64 `json:"w_exec,omitempty"`
	WJudge float64 `json:"w_judge,omitempty"`
	// AskOnMatch: see Hybrid.
	AskOnMatch bool `json:"ask_on_match,omitempty"`
}

// DefaultConfig is the reward the commands serve and train with unless
// told otherwise: the gate hybrid, an error below a wrong result, the
// analytic judge (the LLM judge's URL and model from $OPENAI_BASE_URL and
// $SQLRL_JUDGE_MODEL).
func DefaultConfig() Config {
	return Config{Kind: KindGate, ErrorValue: -1, Scheme: SchemeBinary, WExec: 0.5, WJudge: 0.5,
		Judging: JudgeConfig{Kind: JudgeAnalytic, URL: os.Getenv("OPENAI_BASE_URL"), Model: os.Getenv("SQLRL_JUDGE_MODEL"),
			Timeout: 60 * time.Second, Retries: 2, Concurrency: 16, Fallback: JudgeAnalytic}}
}

// Flags declares the reward's flags on fs, c's values their defaults.
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.Var(kindValue{&c.Kind}, "reward", "reward: "+strings.Join(Kinds(), ", ")+" (exec: ex)")
	fs.Float64Var(&c.ErrorValue, "error-value", c.ErrorValue, "gate: reward of SQL that fails to execute")
	fs.Var(schemeValue{&c.Scheme}, "exec-scheme", "sum: execution part (binary, ex, arctic, mats)")
	fs.Float64Var(&c.WExec, "w-exec", c.WExec, "sum: weight of the execution part")
	fs.Float64Var(&c.WJudge, "w-judge", c.WJudge, "sum: weight of judge/50")
	fs.BoolVar(&c.AskOnMatch, "ask-on-match", c.AskOnMatch, "ask the judge about answers that match the gold too (default: a match gets full marks)")
	j := &c.Judging
	fs.StringVar(&j.Kind, "judge", j.Kind, "judge for judge/gate/sum rewards: analytic or llm")
	fs.StringVar(&j.URL, "judge-url", j.URL, "llm judge: OpenAI-compatible API root, e.g. http://localhost:8000/v1 (default $OPENAI_BASE_URL)")
	fs.StringVar(&j.Model, "judge-model", j.Model, "llm judge: model name (default $SQLRL_JUDGE_MODEL)")
	fs.StringVar(&j.Key, "judge-key", j.Key, "llm judge: API key (default $OPENAI_API_KEY; prefer the variable: flags show in ps)")
	fs.DurationVar(&j.Timeout, "judge-timeout", j.Timeout, "llm judge: time limit per attempt; all attempts also end in time for the fallback to answer before the request's deadline")
	fs.IntVar(&j.Retries, "judge-retries", j.Retries, "llm judge: attempts after the first (exponential backoff)")
	fs.StringVar(&j.Fallback, "judge-fallback", j.Fallback, "llm judge: when it fails: analytic, error (fail the request), or fixed points 0..50")
	fs.IntVar(&j.Concurrency, "judge-concurrency", j.Concurrency, "llm judge: requests in flight to the judge server")
}

// Check reports a config New would refuse, before any work.
func (c Config) Check() error {
	if _, err := ParseKind(c.Kind); err != nil {
		return err
	}
	if c.Judge == nil {
		if _, err := c.Judging.New(); err != nil {
			return err
		}
	}
	return nil
}

// Name names the reward in logs: its kind, and its judge where the kind
// has one.
func (c Config) Name() string {
	if !NeedsResults(c.Kind) && c.Kind != KindJudgeBlind {
		return c.Kind
	}
	j := c.Judging.Kind
	if j == "" {
		j = JudgeAnalytic
	}
	return c.Kind + "+" + j
}

// CorrectLevel is the reward of a correct completion: 1 for every kind
// but a weighted sum, whose top is its weights' sum (the execution part
// at 1, the judge at 50/50).
func (c Config) CorrectLevel() float64 {
	if c.Kind == KindSum {
		return c.WExec + c.WJudge
	}
	return 1
}

type kindValue struct{ p *string }

func (v kindValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v kindValue) Set(s string) error {
	k, err := ParseKind(s)
	if err == nil {
		*v.p = k
	}
	return err
}

type schemeValue struct{ p *Scheme }

func (v schemeValue) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}

func (v schemeValue) Set(s string) error {
	sc, err := ParseScheme(s)
	if err == nil {
		*v.p = sc
	}
	return err
}

// NeedsResults reports whether the kind's judge looks at result rows, so the
// scorer must keep them (eval.Scorer.KeepResults); execution-only kinds can
// use a scorer that stops a wrong query at its first stray row.
func NeedsResults(kind string) bool {
	switch kind {
	case KindJudge, KindGate, KindSum:
		return true
	}
	return false
}

// New builds the reward cfg describes on top of sc.
func New(cfg Config, sc Scorer) (Func, error) {
	j := cfg.Judge
	if j == nil {
		var err error
		if j, err = cfg.Judging.New(); err != nil {
			return nil, err
		}
	}
	switch cfg.Kind {
	case KindBinary, KindEX, KindArctic, KindMATS:
		return &Exec{Scorer: sc, Scheme: Scheme(cfg.Kind)}, nil
	case KindJudge:
		return &JudgeReward{Scorer: sc, Judge: j}, nil
	case KindJudgeBlind:
		return &JudgeReward{Judge: j, Blind: true}, nil
	case KindGate:
		return &Hybrid{Scorer: sc, Judge: j, Rule: RuleGate, ErrorValue: cfg.ErrorValue, AskOnMatch: cfg.AskOnMatch}, nil
	case KindSum:
		scheme := cfg.Scheme
		if scheme == "" {
			scheme = SchemeBinary
		}
		if _, err := ParseScheme(string(scheme)); err != nil {
			return nil, err
		}
		if cfg.WExec < 0 || cfg.WJudge < 0 || cfg.WExec+cfg.WJudge == 0 {
			return nil, fmt.Errorf("sum reward: weights %g and %g: want non-negative, not both 0", cfg.WExec, cfg.WJudge)
		}
		return &Hybrid{Scorer: sc, Judge: j, Rule: RuleSum, Scheme: scheme, WExec: cfg.WExec, WJudge: cfg.WJudge, AskOnMatch: cfg.AskOnMatch}, nil
	}
	return nil, fmt.Errorf("unknown reward %q (want one of %s)", cfg.Kind, strings.Join(Kinds(), ", "))
}
