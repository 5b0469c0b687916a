// Package agents writes the SQL for a benchmark's questions with models,
// on policy's decode loop (policy.DecodeBatch): Predict is one native
// policy's greedy, sampled or voted answers (`sqlrl generate`), and the
// MATS pipeline (planner, validators, fixer, selector; RunConfig, `sqlrl
// pipeline`) makes more than one call to a model per question. The
// package also holds its agents' records, prompts and training sets (the
// training itself is package agents/agenttrain). Every model a pipeline
// calls is a policy.Generator: the native policy, its batcher and a remote
// OpenAI-compatible server (vLLM, llama.cpp, Ollama, `sqlrl serve-model`)
// all satisfy it, so a pipeline can mix backends per agent.
//
// The pipeline splits Text2SQL the way the MATS recipe does, because a
// small model that writes the right query among K samples more often than
// first needs something other than itself to tell which sample is right:
//
//   - the planner writes K candidates (one greedy, K-1 sampled);
//   - each candidate runs on the database; its result or error is what the
//     other agents read;
//   - validators (selection, condition, join) each read the question, the
//     schema, a candidate and its execution response, and conclude
//     "correct" or "incorrect";
//   - the fixer rewrites a candidate that failed or was judged incorrect;
//     its SQL is kept only if it executes;
//   - a selection strategy picks one candidate (package docs in select.go).
package agents

// Validator kinds: what each validator checks of a candidate.
const (
	// ValidateSelection checks the SELECT list: the columns, aggregates
	// and expressions the question asks for, in its order, and nothing
	// else.
	ValidateSelection = "selection"
	// ValidateCondition checks which rows come back: WHERE/HAVING (every
	// filter the question or evidence states, with the right columns,
	// operators and values), GROUP BY, and ORDER BY with LIMIT.
	ValidateCondition = "condition"
	// ValidateJoin checks FROM/JOIN: the tables needed and the keys they
	// are joined on.
	ValidateJoin = "join"
)

// ValidatorKinds lists the validators in the order the pipeline runs them.
var ValidatorKinds = []string{ValidateSelection, ValidateCondition, ValidateJoin}

// Execution is what running a candidate gave, as the agents read it and
// as a rollout records it: enough to score, group and show, not the whole
// result.
type Execution struct {
	// OK is false when the query failed; Error then says why (the
	// engine's message) and Class the verdict class ("syntax_error",
	// "unknown_column", "timeout", ...).
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Class string `json:"class,omitempty"`
	// Columns are the result's column names; Rows its first MaxShownRows
	// rows rendered as text (NULL as "NULL"); NRows the number of rows.
	Columns []string   `json:"columns,omitempty"`
	Rows    [][]string `json:"rows,omitempty"`
	NRows   int        `json:"n_rows"`
	// Group numbers the distinct results among a question's candidates:
	// candidates with equal Group returned results BIRD's EX calls equal
	// (the same set of rows). -1 for a failed query.
	Group int `json:"group"`
}

// MaxShownRows is the number of result rows an agent is shown and a
// rollout keeps: enough to see the shape and a few values, little enough
// to fit a small model's context.
const MaxShownRows = 5
