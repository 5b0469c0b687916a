package feedback

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Export file names (the trainer files are package export's).
const (
	FileQuestions = "feedback.json"
	FileRollouts  = "rollouts.jsonl"
	FileManifest  = "manifest.json"
)

// ExportOptions configure Export.
type ExportOptions struct {
	// Out is the output directory, replaced whole once every file is
	// written and synced (see export.PublishDir): a failed or killed run
	// leaves the previous export whole. It must be missing, empty, or hold
	// only files an export writes.
	Out string
	// DBRoot holds the answers' databases as <DBRoot>/<db_id>/<db_id>.sqlite
	// (BIRD's layout). The TRL and OpenRLHF files need it for the prompts;
	// without it only feedback.json and rollouts.jsonl are written, from
	// which `sqlrl train kto` rebuilds prompts itself.
	DBRoot string
	// Databases, when set, reads the answers' databases by the names they
	// were served under (`sqlrl serve`'s config) instead of DBRoot, and
	// DescriptionDir(db) names the folder holding db's
	// database_description/ (nil: none). Package prompt's catalog reads
	// SQLite databases only.
	Databases      sqlexec.Engine
	DescriptionDir func(db string) string
	// Prompt and Catalog shape the prompts as `sqlrl data prepare` does.
	Prompt  prompt.Options
	Catalog prompt.CatalogOptions
}

// Question is one line of feedback.json, in BIRD's layout: question_id is
// the answer's id, and SQL the accepted or corrected SQL ("" when feedback
// said only that the model was wrong).
type Question struct {
	QuestionID int64  `json:"question_id"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence"`
	SQL        string `json:"SQL"`
}

// ExportManifest counts what an export holds.
type ExportManifest struct {
	SchemaVersion int            `json:"schema_version"`
	Answers       int            `json:"answers"`
	Questions     int            `json:"questions"`
	Desirable     int            `json:"desirable"`
	Undesirable   int            `json:"undesirable"`
	DPOPairs      int            `json:"dpo_pairs"`
	Prompts       bool           `json:"prompts"`
	Files         map[string]int `json:"files"`
}

// signal is what an answer's feedback says, by the rules in
// docs/feedback.md: a failed execution or a thumbs-down makes the model's
// SQL undesirable, a thumbs-up desirable; a correction that ran is
// desirable, and makes a different model SQL undesirable whatever the
// thumbs said.
type signal struct {
	e          Entry
	model      *bool // label of the model's SQL; nil: no signal
	correction string
	at         time.Time // the latest feedback's time, else the answer's
}

// reconcile keeps one label per database, question and SQL, and one
// correction per database and question: the latest signal's (by at, then
// answer id), so that a question asked again and judged otherwise, or
// corrected twice, gives one training target rather than two that
// disagree. Questions compare with their spacing collapsed. A signal left
// with neither is dropped.
func reconcile(sigs []signal) []signal {
	question := func(s signal) string {
		return s.e.DBID + "\x00" + strings.Join(strings.Fields(s.e.Question), " ")
	}
	later := func(a, b signal) bool { return a.at.After(b.at) || (a.at.Equal(b.at) && a.e.ID > b.e.ID) }
	model, corr := map[string]int{}, map[string]int{}
	for i, s := range sigs {
		if s.model != nil {
			k := question(s) + "\x00" + s.e.SQL
			if j, ok := model[k]; !ok || later(s, sigs[j]) {
				model[k] = i
			}
		}
		if s.correction != "" {
			k := question(s)
			if j, ok := corr[k]; !ok || later(s, sigs[j]) {
				corr[k] = i
			}
		}
	}
	var out []signal
	for i, s := range sigs {
		if s.model != nil && model[question(s)+"\x00"+s.e.SQL] != i {
			s.model = nil
		}
		if s.correction != "" && corr[question(s)] != i {
			s.correction = ""
		}
		if s.model != nil || s.correction != "" {
			out = append(out, s)
		}
	}
	return out
}

func judge(e Entry) signal {
	s := signal{e: e, at: e.Time}
	var verdict Verdict
	for _, f := range e.Feedback {
		if f.Time.After(s.at) {
			s.at = f.Time
		}
		if f.Verdict != VerdictNone {
			verdict = f.Verdict
		}
		// A store written before corrections were checked may hold one
		// that reads the catalog or runs two statements: never a target.
		if f.Correction == CorrectionOK && sqlparse.CheckRead(f.CorrectedSQL) == nil {
			s.correction = f.CorrectedSQL
		}
	}
	label := func(b bool) *bool { return &b }
	switch {
	case e.Outcome == OutcomeError:
		s.model = label(false)
	case s.correction != "" && s.correction != e.SQL:
		s.model = label(false)
	case verdict == VerdictDown:
		s.model = label(false)
	case verdict == VerdictUp || s.correction == e.SQL:
		s.model = label(true)
	}
	return s
}

// Export writes the training sets of every answer with a signal in st:
// feedback.json, rollouts.jsonl, and with DBRoot the TRL KTO and DPO files
// and OpenRLHF's KTO file of package export. Records are in answer id
// order, so the same store gives byte-identical files.
func Export(ctx context.Context, st Store, opts ExportOptions) (*ExportManifest, error) {
	if opts.Out == "" {
		return nil, errors.New("export feedback: no output directory")
	}
	var entries []Entry
	for f := (Filter{Limit: MaxPage}); ; {
		p, err := st.History(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("export feedback: %w", err)
		}
		entries = append(entries, p.Entries...)
		if p.Next == 0 {
			break
		}
		f.Before = p.Next
	}
	slices.SortFunc(entries, func(a, b Entry) int { return cmp.Compare(a.ID, b.ID) })
	m := &ExportManifest{SchemaVersion: SchemaVersion(), Answers: len(entries), Files: map[string]int{}, Prompts: opts.DBRoot != "" || opts.Databases != nil}

	var sigs []signal
	for _, e := range entries {
		if s := judge(e); s.model != nil || s.correction != "" {
			sigs = append(sigs, s)
		}
	}
	sigs = reconcile(sigs)
	var questions []Question
	var rolls []export.Rollout
	desirable := true // a correction's label
	type kto struct {
		s          *signal
		completion string
		label      bool
	}
	var ktos []kto
	var pairs []*signal
	for i := range sigs {
		s := &sigs[i]
		q := Question{QuestionID: s.e.ID, DBID: s.e.DBID, Question: s.e.Question, Evidence: s.e.Evidence}
		if s.model != nil {
			if *s.model {
				q.SQL = s.e.SQL
			}
			rolls = append(rolls, export.Rollout{QuestionID: int(s.e.ID), Completion: s.e.SQL, Label: s.model, Source: "model"})
			ktos = append(ktos, kto{s, s.e.SQL, *s.model})
		}
		if s.correction != "" {
			q.SQL = s.correction
			if s.correction != s.e.SQL {
				rolls = append(rolls, export.Rollout{QuestionID: int(s.e.ID), Completion: s.correction, Label: &desirable, Source: "correction"})
				ktos = append(ktos, kto{s, s.correction, true})
				pairs = append(pairs, s)
			}
		}
		questions = append(questions, q)
	}
	m.Questions = len(questions)
	m.DPOPairs = len(pairs)
	for _, k := range ktos {
		if k.label {
			m.Desirable++
		} else {
			m.Undesirable++
		}
	}

	files := map[string][]byte{}
	qs, err := json.MarshalIndent(questions, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export feedback: %w", err)
	}
	if questions == nil {
		qs = []byte("[]")
	}
	files[FileQuestions] = append(qs, '\n')
	m.Files[FileQuestions] = len(questions)
	add := func(name string, n int, rec func(i int) any) error {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for i := range n {
			if err := enc.Encode(rec(i)); err != nil {
				return fmt.Errorf("export feedback: %s record %d: %w", name, i, err)
			}
		}
		files[name] = buf.Bytes()
		m.Files[name] = n
		return nil
	}
	if err := add(FileRollouts, len(rolls), func(i int) any { return rolls[i] }); err != nil {
		return nil, err
	}

	if m.Prompts {
		catOpts := opts.Catalog
		var eng sqlexec.Engine = opts.Databases
		if eng != nil {
			if catOpts.DescriptionDir == nil {
				catOpts.DescriptionDir = opts.DescriptionDir
			}
		} else {
			sq := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: opts.DBRoot})
			defer sq.Close()
			eng = sq
			if catOpts.DescriptionRoot == "" {
				catOpts.DescriptionRoot = opts.DBRoot
			}
		}
		cat := prompt.NewCatalog(eng, catOpts)
		b, err := prompt.NewBuilder(cat, opts.Prompt)
		if err != nil {
			return nil, fmt.Errorf("export feedback: %w", err)
		}
		prompts := map[int64]*prompt.Prompt{}
		for i := range questions {
			q := &questions[i]
			in := prompt.Input{DBID: q.DBID, Question: q.Question, Evidence: q.Evidence}
			if q.SQL != "" {
				schema, err := cat.Schema(ctx, q.DBID)
				if err != nil {
					return nil, fmt.Errorf("export feedback: answer %d: database %s: %w", q.QuestionID, q.DBID, err)
				}
				in.Keep = export.GoldTables(q.SQL, schema)
			}
			p, err := b.Build(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("export feedback: answer %d: prompt on database %s: %w", q.QuestionID, q.DBID, err)
			}
			prompts[q.QuestionID] = p
		}
		asst := func(s string) []prompt.Message { return []prompt.Message{{Role: "assistant", Content: s}} }
		steps := []struct {
			name string
			n    int
			rec  func(i int) any
		}{
			{export.FileTRLKTO, len(ktos), func(i int) any {
				p := prompts[ktos[i].s.e.ID]
				return export.TRLKTO{Prompt: p.Plain(), Completion: ktos[i].completion, Label: ktos[i].label}
			}},
			{export.FileTRLKTOChat, len(ktos), func(i int) any {
				p := prompts[ktos[i].s.e.ID]
				return export.TRLKTOChat{Prompt: p.Messages(), Completion: asst(ktos[i].completion), Label: ktos[i].label}
			}},
			{export.FileOpenRLHFKTO, len(ktos), func(i int) any {
				p := prompts[ktos[i].s.e.ID]
				return export.OpenRLHFKTO{Messages: p.Conversation(ktos[i].completion), Text: p.Plain() + ktos[i].completion, Label: ktos[i].label}
			}},
			{export.FileTRLDPO, len(pairs), func(i int) any {
				s := pairs[i]
				return export.TRLDPO{Prompt: prompts[s.e.ID].Plain(), Chosen: s.correction, Rejected: s.e.SQL}
			}},
			{export.FileTRLDPOChat, len(pairs), func(i int) any {
				s := pairs[i]
				return export.TRLDPOChat{Prompt: prompts[s.e.ID].Messages(), Chosen: asst(s.correction), Rejected: asst(s.e.SQL)}
			}},
		}
		for _, st := range steps {
			if err := add(st.name, st.n, st.rec); err != nil {
				return nil, err
			}
		}
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export feedback: manifest: %w", err)
	}
	files[FileManifest] = append(mb, '\n')
	err = export.PublishDir(ctx, opts.Out, exportFiles, func(dir string) error {
		for _, n := range slices.Sorted(maps.Keys(files)) {
			if err := writeFile(filepath.Join(dir, n), files[n], 0o644); err != nil {
				return fmt.Errorf("write %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("export feedback: %w", err)
	}
	return m, nil
}

// exportFiles are every name an export may hold: a directory holding any
// other file is not an export and is not replaced.
var exportFiles = []string{
	FileQuestions, FileRollouts, FileManifest,
	export.FileTRLKTO, export.FileTRLKTOChat, export.FileOpenRLHFKTO, export.FileTRLDPO, export.FileTRLDPOChat,
}

// writeFile writes one file of an export into the staging directory;
// export.PublishDir fsyncs it. A test replaces it to fail mid-export.
var writeFile = os.WriteFile
