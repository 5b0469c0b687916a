package agents

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
)

// Roles of the pipeline's agents; each names its template file
// (<role>.tmpl).
const (
	RolePlanner   = "planner"
	RoleValidator = "validator"
	RoleFixer     = "fixer"
	RoleSelector  = "selector"
)

// Roles lists every role.
var Roles = []string{RolePlanner, RoleValidator, RoleFixer, RoleSelector}

// Template sets: the native model reads compact prompts and answers
// bare (SQL, a feedback line, "A" or "B"); a chat model reads
// instructions and answers in the recipe's formats, which ParseSQL,
// ParseVerdict and ParseChoice accept.
const (
	SetNative = "native"
	SetChat   = "chat"
)

//go:embed prompts
var builtin embed.FS

// Templates holds one template per role.
type Templates map[string]*template.Template

// LoadTemplates reads the template set (SetNative or SetChat): the
// built-in ones, each replaced by dir/<set>/<role>.tmpl when dir is set
// and that file exists, so that users edit prompts without rebuilding.
func LoadTemplates(set, dir string) (Templates, error) {
	if set != SetNative && set != SetChat {
		return nil, fmt.Errorf("agents: unknown template set %q (want %s or %s)", set, SetNative, SetChat)
	}
	ts := Templates{}
	for _, role := range Roles {
		name := set + "/" + role + ".tmpl"
		src, err := fs.ReadFile(builtin, "prompts/"+name)
		if err != nil {
			return nil, fmt.Errorf("agents: built-in template %s: %w", name, err)
		}
		from := "built-in " + name
		if dir != "" {
			path := filepath.Join(dir, set, role+".tmpl")
			b, err := os.ReadFile(path)
			switch {
			case err == nil:
				src, from = b, path
			case !errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("agents: read template %s: %w", path, err)
			}
		}
		t, err := template.New(role).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("agents: parse template %s: %w", from, err)
		}
		// Render once on sample data so that a template naming a field
		// that does not exist fails here, not on the thousandth question.
		if err := t.Execute(&bytes.Buffer{}, sampleData); err != nil {
			return nil, fmt.Errorf("agents: template %s: %w", from, err)
		}
		ts[role] = t
	}
	return ts, nil
}

// WriteTemplates copies the built-in templates under dir (dir/native,
// dir/chat) for a user to edit; existing files are kept.
func WriteTemplates(dir string) ([]string, error) {
	var wrote []string
	err := fs.WalkDir(builtin, "prompts", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		out := filepath.Join(dir, strings.TrimPrefix(path, "prompts/"))
		if _, err := os.Stat(out); err == nil {
			return nil
		}
		b, err := fs.ReadFile(builtin, path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(out, b); err != nil {
			return err
		}
		wrote = append(wrote, out)
		return nil
	})
	return wrote, err
}

// PromptData is what a template sees.
type PromptData struct {
	// Prompt is the planner's prompt for the question (the checkpoint's
	// compact prompt for the native model, package prompt's plain prompt
	// for a chat model); Context is Prompt without the native cue
	// ("\nSQL: "), for prompts that go on with something else.
	Prompt, Context    string
	Question, Evidence string
	// Kind is the validator's kind (ValidatorKinds).
	Kind string
	// SQL and Result are the candidate under review and its execution
	// response (RenderExecution).
	SQL, Result string
	// Feedback are the validators' feedback texts the fixer reads (those
	// that concluded "incorrect"), or the error of a failed query.
	Feedback []string
	// A and B are the two candidates the selector compares.
	A, B Shown
}

// Shown is a candidate as the selector is shown it.
type Shown struct{ SQL, Result string }

var sampleData = PromptData{Prompt: "p\nSQL: ", Context: "p", Question: "q", Kind: ValidateSelection, SQL: "SELECT 1", Result: "1 row",
	Feedback: []string{"f"}, A: Shown{"SELECT 1", "1 row"}, B: Shown{"SELECT 2", "1 row"}}

// Render executes the role's template on d.
func (ts Templates) Render(role string, d PromptData) (string, error) {
	t, ok := ts[role]
	if !ok {
		return "", fmt.Errorf("agents: no template for %s", role)
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("agents: render %s: %w", role, err)
	}
	return b.String(), nil
}

// RenderExecution writes an execution response the way agents read it:
// "error: <message>" for a failed query, else the row count, the columns
// and the first MaxShownRows rows ("3 rows; name | total: Ann | 3; Bob |
// 2; ..."). One line: a small model's context has no room for a table.
func RenderExecution(e Execution) string {
	if !e.OK {
		msg := e.Error
		if msg == "" {
			msg = e.Class
		}
		return "error: " + textclip.Clip(oneLine(msg), 160)
	}
	if e.NRows == 0 {
		return "no rows"
	}
	var b strings.Builder
	if e.NRows == 1 {
		b.WriteString("1 row; ")
	} else {
		fmt.Fprintf(&b, "%d rows; ", e.NRows)
	}
	b.WriteString(strings.Join(e.Columns, " | "))
	for _, r := range e.Rows {
		b.WriteString(": ")
		for j, v := range r {
			if j > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(textclip.Clip(oneLine(v), 40))
		}
	}
	if e.NRows > len(e.Rows) {
		b.WriteString(": ...")
	}
	return b.String()
}

// NewExecution turns a result (or the error that replaced it, with its
// sqlexec class) into what a rollout keeps: columns, the first
// MaxShownRows rows as text, the row count.
func NewExecution(res *sqlexec.Result, err error, class string) Execution {
	if err != nil || res == nil {
		msg := ""
		var se *sqlexec.Error
		switch {
		case errors.As(err, &se):
			msg = se.Msg
		case err != nil:
			msg = err.Error()
		}
		if class == "" {
			class = string(sqlexec.ClassOf(err))
		}
		return Execution{Error: msg, Class: class, Group: -1}
	}
	e := Execution{OK: true, Columns: res.Columns, NRows: len(res.Rows)}
	for _, r := range res.Rows[:min(len(res.Rows), MaxShownRows)] {
		row := make([]string, len(r))
		for j, v := range r {
			row[j] = v.Display()
		}
		e.Rows = append(e.Rows, row)
	}
	return e
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Agent is one role played by one backend.
type Agent struct {
	Role string
	Gen  policy.Generator
	// Templates is the set the backend reads (LoadTemplates); Set names
	// it: answers of SetChat agents are parsed in the recipe's formats,
	// those of the native model are bare.
	Templates Templates
	Set       string
	// MaxTokens is the answer budget; Temperature 0 is greedy.
	MaxTokens   int
	Temperature float64
	// Room, when set, says how many tokens of the backend's context a
	// prompt leaves (a native model's context is 768 tokens: a planner
	// prompt, a candidate, its result and a feedback can outgrow it).
	Room func(prompt string) int
}

// errNoRoom is recorded for a prompt that cannot fit the agent's context
// even shortened.
var errNoRoom = errors.New("the prompt does not fit the model's context, even with the candidate's SQL, result and feedback cut")

// minRoom is the shortest answer each role needs: a feedback line, a
// query, a letter.
var minRoom = map[string]int{RoleValidator: 24, RoleFixer: 64, RoleSelector: 2}

// renderFit renders role's template on d and, when the prompt leaves the
// agent less than the role's shortest answer, renders it again with the
// reviewed material cut, step by step: result rows, then all feedback
// but the first, then long SQL. ok is false when even that does not fit.
func (a *Agent) renderFit(role string, d PromptData) (string, bool, error) {
	txt, err := a.Templates.Render(role, d)
	if err != nil || a.Room == nil {
		return txt, err == nil, err
	}
	need := max(minRoom[role], 1)
	cuts := []func(*PromptData){
		func(d *PromptData) {
			d.Result, d.A.Result, d.B.Result = cutRows(d.Result), cutRows(d.A.Result), cutRows(d.B.Result)
		},
		func(d *PromptData) {
			if len(d.Feedback) > 1 {
				d.Feedback = d.Feedback[:1]
			}
			for i := range d.Feedback {
				d.Feedback[i] = textclip.Clip(d.Feedback[i], 160)
			}
		},
		func(d *PromptData) {
			d.SQL, d.A.SQL, d.B.SQL = textclip.Clip(d.SQL, 300), textclip.Clip(d.A.SQL, 300), textclip.Clip(d.B.SQL, 300)
		},
	}
	d.Feedback = append([]string(nil), d.Feedback...)
	for k := 0; a.Room(txt) < need; k++ {
		if k == len(cuts) {
			return "", false, nil
		}
		cuts[k](&d)
		if txt, err = a.Templates.Render(role, d); err != nil {
			return "", false, err
		}
	}
	return txt, true, nil
}

// cutRows keeps an execution response's row count and columns
// (RenderExecution's "3 rows; a | b: ..." up to the first row).
func cutRows(res string) string {
	head, _, found := strings.Cut(res, ": ")
	if !found || strings.HasPrefix(res, "error: ") {
		return textclip.Clip(res, 120)
	}
	return head
}
