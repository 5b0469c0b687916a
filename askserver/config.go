package askserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/policy"
)

// Config is `sqlrl serve`'s config file (JSON). Relative paths are read
// from the config file's folder, so a config and its databases move
// together.
type Config struct {
	// Databases maps the name users pick to a database.
	Databases map[string]DatabaseConfig `json:"databases"`
	// Generator writes the SQL.
	Generator GeneratorConfig `json:"generator"`
	// Store is the feedback store: a SQLite file (default feedback.sqlite
	// beside the config) or a postgres:// DSN shared by replicas.
	Store string `json:"store,omitempty"`
	// APIKeys maps a key's name (recorded as a feedback's author) to the
	// key; needed for feedback and admin routes.
	APIKeys map[string]APIKey `json:"api_keys,omitempty"`
	Limits  Limits            `json:"limits,omitempty"`

	// path is the file read, for messages and relative paths.
	path string
}

// DatabaseConfig is one database: a SQLite file, or a PostgreSQL DSN and
// the schema holding its tables.
type DatabaseConfig struct {
	SQLite   string `json:"sqlite,omitempty"`
	Postgres string `json:"postgres,omitempty"`
	// PostgresEnv names an environment variable holding the DSN, so that a
	// password need not sit in the config.
	PostgresEnv string `json:"postgres_env,omitempty"`
	// Schema is the PostgreSQL schema holding the tables; default public.
	Schema string `json:"schema,omitempty"`
	// Examples are the questions the page offers for this database; when
	// none are given, the server writes a few from the schema.
	Examples []ExampleQuestion `json:"examples,omitempty"`
	// Descriptions is the folder holding this database's
	// database_description/ (BIRD's column CSVs, which prompts show);
	// default: the SQLite file's own folder. `specialise` points it at the
	// copies its models were trained with when a descriptions file
	// changed them.
	Descriptions string `json:"descriptions,omitempty"`
}

// GeneratorConfig is the config file's "generator": the model that writes
// SQL (the SQLGenerator New opens), the native policy (Native, a
// checkpoint or run directory) or an OpenAI-compatible server.
type GeneratorConfig struct {
	Native string        `json:"native,omitempty"`
	OpenAI *OpenAIConfig `json:"openai,omitempty"`
	// MaxTokens caps the SQL's length in tokens; default 256.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Timeout bounds writing one answer's SQL; default 60s.
	Timeout Duration `json:"timeout,omitempty"`
	// Slots is the native policy's batch: sequences decoded at once across
	// concurrent requests; default 32.
	Slots int `json:"slots,omitempty"`
	// PromptTokens is the prompt budget for the OpenAI generator (tables
	// least relevant to the question are pruned past it); default 8192.
	PromptTokens int `json:"prompt_tokens,omitempty"`
	// Name is the model's name recorded with each answer and shown on the
	// page; default: the native checkpoint's run and step
	// ("sft/step-002256"), or the OpenAI model's id.
	Name string `json:"name,omitempty"`
	// Samples is the number of SQLs sampled besides each answer's, whose
	// agreement with it is shown as the answer's confidence; default
	// DefaultSamples, 0 turns sampling off. SampleTemperature is theirs;
	// default 1.
	Samples           *int    `json:"samples,omitempty"`
	SampleTemperature float64 `json:"sample_temperature,omitempty"`
	// Vote answers with the candidate whose result most of the greedy
	// decode and its samples return (package consensus: failures
	// dropped, ties to the greedy decode) instead of the greedy decode
	// itself; it needs samples.
	Vote bool `json:"vote,omitempty"`
}

// SampleCount is Samples with its default.
func (g GeneratorConfig) SampleCount() int {
	if g.Samples == nil {
		return DefaultSamples
	}
	return *g.Samples
}

// OpenAIConfig is an OpenAI-compatible chat server.
type OpenAIConfig struct {
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	// APIKeyEnv names the environment variable holding the server's key.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	Retries   int    `json:"retries,omitempty"`
}

// APIKey is a key given inline or read from an environment variable, and
// what its holder may do.
type APIKey struct {
	Key string `json:"key,omitempty"`
	Env string `json:"env,omitempty"`
	// Role is RoleAnalyst or RoleAdmin; "" is RoleAdmin, as every key
	// was before roles existed.
	Role Role `json:"role,omitempty"`
}

// Limits bound what one request may cost.
type Limits struct {
	// StatementTimeout interrupts a query; default 10s.
	StatementTimeout Duration `json:"statement_timeout,omitempty"`
	// MaxRows is the most rows of a result kept (more: the result is
	// truncated, total_rows says so); default 10000.
	MaxRows int `json:"max_rows,omitempty"`
	// MaxBytes is the most memory a result may hold; default 16 MiB.
	MaxBytes int `json:"max_bytes,omitempty"`
	// MaxBodyBytes caps a request body; default 64 KiB.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// PageSize is the rows per page of a result; default 50.
	PageSize int `json:"page_size,omitempty"`
	// RequestTimeout bounds a request end to end; default 120s.
	RequestTimeout Duration `json:"request_timeout,omitempty"`
	// MaxRequests bounds requests answered at once; default 256.
	MaxRequests int `json:"max_requests,omitempty"`
}

// Defaults of Limits and GeneratorConfig.
const (
	DefaultStatementTimeout = 10 * time.Second
	DefaultMaxRows          = 10000
	DefaultMaxBytes         = 16 << 20
	DefaultMaxBodyBytes     = 64 << 10
	DefaultPageSize         = 50
	DefaultRequestTimeout   = 120 * time.Second
	DefaultMaxRequests      = 256
	DefaultMaxTokens        = 256
	DefaultGenerateTimeout  = 60 * time.Second
	DefaultPromptTokens     = 8192
	DefaultSamples          = 8
	DefaultSampleTemp       = 1.0
	// MaxSamples bounds generator.samples: each is decoded and run.
	MaxSamples = 32
	// MaxQuestionChars and MaxSQLChars bound what a user may send.
	MaxQuestionChars = 4000
	MaxSQLChars      = 100000
)

func (l *Limits) withDefaults() {
	if l.StatementTimeout <= 0 {
		l.StatementTimeout = Duration(DefaultStatementTimeout)
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.PageSize <= 0 {
		l.PageSize = DefaultPageSize
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = Duration(DefaultRequestTimeout)
	}
	if l.MaxRequests <= 0 {
		l.MaxRequests = DefaultMaxRequests
	}
}

// Duration is a time.Duration written as Go writes it ("10s", "1m30s").
type Duration time.Duration

// UnmarshalJSON reads "10s"; a bare number is refused, since its unit
// would be a guess.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"10s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("want a duration such as \"10s\", got %q", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes d as "10s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// LoadConfig reads and checks a config file. Every error names the file
// and the field.
func LoadConfig(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("serve config: %w", err)
	}
	return ParseConfig(path, raw)
}

// ParseConfig reads a config whose text is raw; path names it in errors
// and anchors relative paths.
func ParseConfig(path string, raw []byte) (*Config, error) {
	c, err := decodeConfig(path, raw)
	if err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("serve config %s: %w", path, err)
	}
	return c, nil
}

// decodeConfig reads raw strictly (unknown fields, trailing values),
// without checking the values.
func decodeConfig(path string, raw []byte) (*Config, error) {
	c := &Config{path: path}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, fmt.Errorf("serve config %s: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("serve config %s: more than one JSON value", path)
	}
	return c, nil
}

// Path is the file the config was read from.
func (c *Config) Path() string { return c.path }

// resolve makes p relative to the config's folder.
func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	abs, err := filepath.Abs(filepath.Join(filepath.Dir(c.path), p))
	if err != nil {
		return filepath.Join(filepath.Dir(c.path), p)
	}
	return abs
}

func (c *Config) check() error {
	if len(c.Databases) == 0 {
		return errors.New("databases: none configured (want {\"name\": {\"sqlite\": \"file.sqlite\"}})")
	}
	for _, name := range c.DatabaseNames() {
		d := c.Databases[name]
		field := fmt.Sprintf("databases.%s", name)
		if !validName(name) {
			return fmt.Errorf("%s: a name is letters, digits, '_', '-' and '.', at most 64", field)
		}
		n := 0
		for _, s := range []string{d.SQLite, d.Postgres, d.PostgresEnv} {
			if s != "" {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: want exactly one of \"sqlite\", \"postgres\" or \"postgres_env\"", field)
		}
		if d.SQLite != "" {
			if d.Schema != "" {
				return fmt.Errorf("%s.schema: only for PostgreSQL databases", field)
			}
			d.SQLite = c.resolve(d.SQLite)
			if st, err := os.Stat(d.SQLite); err != nil || !st.Mode().IsRegular() {
				return fmt.Errorf("%s.sqlite: no file %s", field, d.SQLite)
			}
		} else {
			if d.PostgresEnv != "" {
				d.Postgres = os.Getenv(d.PostgresEnv)
				if d.Postgres == "" {
					return fmt.Errorf("%s.postgres_env: environment variable %s is empty", field, d.PostgresEnv)
				}
			}
			if !feedback.IsPostgres(d.Postgres) {
				return fmt.Errorf("%s.postgres: want a postgres:// DSN", field)
			}
			if d.Schema == "" {
				d.Schema = "public"
			}
		}
		if d.Descriptions != "" {
			d.Descriptions = c.resolve(d.Descriptions)
			if st, err := os.Stat(filepath.Join(d.Descriptions, "database_description")); err != nil || !st.IsDir() {
				return fmt.Errorf("%s.descriptions: no folder database_description in %s", field, d.Descriptions)
			}
		}
		if err := checkExamples(field+".examples", d.Examples); err != nil {
			return err
		}
		c.Databases[name] = d
	}
	g := &c.Generator
	switch {
	case g.Native != "" && g.OpenAI != nil:
		return errors.New("generator: want one of \"native\" or \"openai\", not both")
	case g.Native != "":
		g.Native = c.resolve(g.Native)
	case g.OpenAI != nil:
		if g.OpenAI.BaseURL == "" || g.OpenAI.Model == "" {
			return errors.New("generator.openai: want base_url and model")
		}
		if !strings.HasPrefix(g.OpenAI.BaseURL, "http://") && !strings.HasPrefix(g.OpenAI.BaseURL, "https://") {
			return fmt.Errorf("generator.openai.base_url: want an http(s) URL, got %q", g.OpenAI.BaseURL)
		}
		if g.OpenAI.APIKeyEnv != "" && os.Getenv(g.OpenAI.APIKeyEnv) == "" {
			return fmt.Errorf("generator.openai.api_key_env: environment variable %s is empty", g.OpenAI.APIKeyEnv)
		}
		if g.OpenAI.Retries < 0 {
			return errors.New("generator.openai.retries: negative")
		}
	}
	if g.MaxTokens < 0 || g.Slots < 0 || g.PromptTokens < 0 {
		return errors.New("generator: max_tokens, slots and prompt_tokens may not be negative")
	}
	if n := g.SampleCount(); n < 0 || n > MaxSamples {
		return fmt.Errorf("generator.samples: %d, want 0 (off) to %d", n, MaxSamples)
	}
	if g.Vote && g.SampleCount() == 0 {
		return errors.New("generator.vote: needs samples to vote with; set generator.samples above 0 or drop vote")
	}
	if g.SampleTemperature < 0 || g.SampleTemperature > 2 {
		return fmt.Errorf("generator.sample_temperature: %v, want 0 to 2", g.SampleTemperature)
	}
	if g.SampleTemperature == 0 {
		g.SampleTemperature = DefaultSampleTemp
	}
	if g.MaxTokens == 0 {
		g.MaxTokens = DefaultMaxTokens
	}
	if g.Timeout == 0 {
		g.Timeout = Duration(DefaultGenerateTimeout)
	}
	if g.PromptTokens == 0 {
		g.PromptTokens = DefaultPromptTokens
	}
	if c.Store == "" {
		c.Store = "feedback.sqlite"
	}
	if !feedback.IsPostgres(c.Store) {
		c.Store = c.resolve(c.Store)
	}
	for _, name := range sortedKeys(c.APIKeys) {
		k := c.APIKeys[name]
		field := "api_keys." + name
		if !validName(name) {
			return fmt.Errorf("%s: a name is letters, digits, '_', '-' and '.', at most 64", field)
		}
		if (k.Key == "") == (k.Env == "") {
			return fmt.Errorf("%s: want exactly one of \"key\" or \"env\"", field)
		}
		if k.Env != "" {
			k.Key = os.Getenv(k.Env)
			if k.Key == "" {
				return fmt.Errorf("%s.env: environment variable %s is empty", field, k.Env)
			}
		}
		if len(k.Key) < 16 {
			return fmt.Errorf("%s: a key of %d characters is too easy to guess; use 16 or more (openssl rand -hex 16)", field, len(k.Key))
		}
		role, err := parseRole(k.Role)
		if err != nil {
			return fmt.Errorf("%s.role: %w", field, err)
		}
		k.Role = role
		c.APIKeys[name] = k
	}
	l := &c.Limits
	if l.MaxRows < 0 || l.MaxBytes < 0 || l.MaxBodyBytes < 0 || l.PageSize < 0 || l.MaxRequests < 0 {
		return errors.New("limits: no limit may be negative")
	}
	if l.PageSize > 1000 {
		return fmt.Errorf("limits.page_size: %d, at most 1000", l.PageSize)
	}
	l.withDefaults()
	return nil
}

// DatabaseNames returns the configured names, sorted.
func (c *Config) DatabaseNames() []string { return sortedKeys(c.Databases) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// Starter is what StarterConfig writes a config for.
type Starter struct {
	// DBs are the SQLite databases by name (paths made absolute; each
	// must be a file); Descriptions, optional, the folder holding a
	// database's database_description/ when not beside its file.
	DBs          map[string]string
	Descriptions map[string]string
	// Native, when set, is a checkpoint or run directory of the native
	// policy (made absolute; it must resolve to a checkpoint that writes
	// SQL), the generator; otherwise the generator is a placeholder
	// OpenAI-compatible server at 127.0.0.1:8000.
	Native string
	// Vote, when on, makes the generator answer by vote over its samples
	// (GeneratorConfig.Vote), drawn as it says.
	Vote consensus.Sampling
}

// StarterConfig returns a config for st's databases and generator, with
// one API key read from SQLRL_SERVE_KEY: what `sqlrl serve init` and
// `sqlrl specialise` write.
func StarterConfig(st Starter) ([]byte, error) {
	dbs, native, vote := st.DBs, st.Native, st.Vote
	c := Config{Databases: map[string]DatabaseConfig{}, APIKeys: map[string]APIKey{"admin": {Env: "SQLRL_SERVE_KEY", Role: RoleAdmin}},
		Store: "feedback.sqlite"}
	if native != "" {
		a, err := filepath.Abs(native)
		if err != nil {
			return nil, err
		}
		if err := checkNative(a); err != nil {
			return nil, fmt.Errorf("-native %s: %w", native, err)
		}
		c.Generator = GeneratorConfig{Native: a}
	} else {
		c.Generator = GeneratorConfig{OpenAI: &OpenAIConfig{BaseURL: "http://127.0.0.1:8000/v1", Model: "sqlrl-policy"}}
	}
	c.Generator.MaxTokens, c.Generator.Timeout = DefaultMaxTokens, Duration(DefaultGenerateTimeout)
	if vote.On() {
		if vote.TopP != sampleTopP {
			return nil, fmt.Errorf("a served vote samples at top-p %g, not %g", sampleTopP, vote.TopP)
		}
		n := vote.Samples
		c.Generator.Samples, c.Generator.SampleTemperature, c.Generator.Vote = &n, vote.Temperature, true
	}
	for name, p := range dbs {
		if !validName(name) {
			return nil, fmt.Errorf("database name %q: letters, digits, '_', '-' and '.', at most 64", name)
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(a); err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("database %s=%s: no such file", name, p)
		}
		dc := DatabaseConfig{SQLite: a}
		if dir := st.Descriptions[name]; dir != "" {
			if dc.Descriptions, err = filepath.Abs(dir); err != nil {
				return nil, err
			}
		}
		c.Databases[name] = dc
	}
	c.Limits.withDefaults()
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// checkNative checks that dir names a checkpoint of a policy that writes
// SQL (policy.Resolve, then its config.json), without reading the weights.
func checkNative(dir string) error {
	ck, err := policy.Resolve(dir)
	if err != nil {
		return err
	}
	info, err := policy.ReadInfo(ck)
	if err != nil {
		return err
	}
	switch {
	case info.Format != policy.CheckpointFormat:
		return fmt.Errorf("%s: format %q, want %q", ck, info.Format, policy.CheckpointFormat)
	case info.Task != "":
		return fmt.Errorf("%s: a checkpoint trained for task %q, not to write SQL", ck, info.Task)
	}
	return nil
}

var getenv = os.Getenv
