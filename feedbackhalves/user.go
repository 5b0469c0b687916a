package feedbackhalves

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// userName is the scripted user's API key name, recorded as the author
// of every verdict.
const userName = "scripted-user"

// Answer is one question of the trained half as served and judged: the
// server's answer id and SQL, and the scripted user's verdict.
type Answer struct {
	QuestionID int    `json:"question_id"`
	AnswerID   int64  `json:"answer_id"`
	SQL        string `json:"sql"`
	// Error is the answer's error class when it failed to generate or run.
	Error string `json:"error,omitempty"`
	// Correct is BIRD EX of the served SQL against the gold: thumbs up.
	Correct bool `json:"correct"`
	// Correction is the server's check of the gold sent with a thumbs
	// down: "ok" when it ran ("error" otherwise).
	Correction string `json:"correction,omitempty"`
}

// Served is a trained half's answers, kept in the run's ServedFile.
type Served struct {
	Answers []Answer `json:"answers"`
}

// Tally counts a half's feedback.
type Tally struct {
	Questions int `json:"questions"`
	Up        int `json:"up"`
	Down      int `json:"down"`
	// Failed counts the answers that did not generate or run; a thumbs
	// down each.
	Failed int `json:"failed"`
	// CorrectionsFailed counts the golds the server could not run as a
	// correction (nothing to train towards on those).
	CorrectionsFailed int `json:"corrections_failed"`
}

func (s *Served) tally() Tally {
	t := Tally{Questions: len(s.Answers)}
	for _, a := range s.Answers {
		if a.Correct {
			t.Up++
		} else {
			t.Down++
			if a.Correction != string(feedback.CorrectionOK) {
				t.CorrectionsFailed++
			}
		}
		if a.Error != "" {
			t.Failed++
		}
	}
	return t
}

// serveHalf has the served model answer every question of p's trained
// half once through askserver's API, and the scripted user judge each
// answer through the same API, into the run's own feedback store: or
// reads back the record of a half served before.
func serveHalf(ctx context.Context, o Options, in *input, p plannedRun) (*Served, error) {
	path := filepath.Join(p.dir, ServedFile)
	if b, err := os.ReadFile(path); err == nil {
		var s Served
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("read %s: %w (remove it and %s to serve the half again)", path, err, StoreFile)
		}
		stage(o.Progress, "%s: half %s served before (%s)", p.name, p.cfg.Trained, path)
		return &s, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// An interrupted serving leaves a partial store: start it afresh.
	store := filepath.Join(p.dir, StoreFile)
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(store + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	cfg, err := serveConfig(in, p, key)
	if err != nil {
		return nil, err
	}
	st, err := feedback.Open(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("feedback store: %w", err)
	}
	defer st.Close()
	srv, err := askserver.New(ctx, cfg, askserver.Options{Store: st, Threads: o.Threads})
	if err != nil {
		return nil, fmt.Errorf("serve %s: %w", in.checkpoint, err)
	}
	defer srv.Close()
	c := client{h: srv.Handler(), key: key}

	s := &Served{}
	bar := progress.New(o.Progress, fmt.Sprintf("%s: serving half %s", p.name, p.cfg.Trained), len(p.trained))
	for i, ex := range p.trained {
		var a struct {
			AnswerID int64                `json:"answer_id"`
			SQL      string               `json:"sql"`
			Error    *askserver.ErrorInfo `json:"error"`
		}
		if err := c.post(ctx, "/api/ask", map[string]string{"db": ex.DBID, "question": ex.Question, "evidence": ex.Evidence}, &a); err != nil {
			return nil, fmt.Errorf("ask question_id %d: %w", ex.QuestionID, err)
		}
		ans := Answer{QuestionID: ex.QuestionID, AnswerID: a.AnswerID, SQL: a.SQL}
		if a.Error != nil {
			ans.Error = a.Error.Class
		}
		s.Answers = append(s.Answers, ans)
		bar.Set(i + 1)
	}
	bar.Finish()

	if err := judge(ctx, in.root, p.trained, s.Answers); err != nil {
		return nil, err
	}
	for i, ex := range p.trained {
		a := &s.Answers[i]
		body := map[string]string{"verdict": "up"}
		if !a.Correct {
			body = map[string]string{"verdict": "down", "corrected_sql": ex.SQL}
		}
		var r askserver.FeedbackResponse
		if err := c.post(ctx, fmt.Sprintf("/api/answers/%d/feedback", a.AnswerID), body, &r); err != nil {
			return nil, fmt.Errorf("feedback on question_id %d (answer %d): %w", ex.QuestionID, a.AnswerID, err)
		}
		a.Correction = r.Correction
	}
	t := s.tally()
	stage(o.Progress, "%s: %d answers, %d thumbs up, %d thumbs down with the gold as the correction (%d golds did not run)", p.name, t.Questions, t.Up, t.Down, t.CorrectionsFailed)
	if err := srv.Close(); err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, fmt.Errorf("feedback store: %w", err)
	}
	return s, writeJSON(path, s)
}

// serveConfig is the config `sqlrl serve` would read for p's half: the
// half's databases, the native model, no confidence samples (they do not
// change the answer, only its confidence mark), one analyst key.
func serveConfig(in *input, p plannedRun, key string) (*askserver.Config, error) {
	dbs := map[string]askserver.DatabaseConfig{}
	for _, ex := range p.trained {
		dbs[ex.DBID] = askserver.DatabaseConfig{SQLite: filepath.Join(in.root, ex.DBID, ex.DBID+".sqlite")}
	}
	none := 0
	cfg := askserver.Config{Databases: dbs, Store: StoreFile,
		Generator: askserver.GeneratorConfig{Native: in.checkpoint, Samples: &none},
		APIKeys:   map[string]askserver.APIKey{userName: {Key: key, Role: askserver.RoleAnalyst}}}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return askserver.ParseConfig(filepath.Join(p.dir, "serve.json"), raw)
}

// judge sets each answer's Correct: BIRD EX of its SQL against the gold,
// scored as sqlrl eval scores (an answer without SQL is wrong).
func judge(ctx context.Context, root string, exs []dataset.Example, answers []Answer) error {
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}})
	defer eng.Close()
	preds := make([]*dataset.Prediction, len(exs))
	for i, a := range answers {
		if a.SQL != "" {
			preds[i] = &dataset.Prediction{Index: exs[i].Index, QuestionID: a.QuestionID, DBID: exs[i].DBID, SQL: a.SQL}
		}
	}
	sc := &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout}
	rep, err := eval.Run(ctx, sc, exs, preds, eval.Options{Workers: 1})
	if err != nil {
		return fmt.Errorf("the scripted user's verdicts: %w", err)
	}
	for i := range answers {
		answers[i].Correct = rep.Questions[i].Correct
	}
	return nil
}

// client calls the server's handler as a user's browser would, with the
// user's key.
type client struct {
	h   http.Handler
	key string
}

func (c client) post(ctx context.Context, route string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, route, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d: %s", route, rec.Code, bytes.TrimSpace(rec.Body.Bytes()))
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		return fmt.Errorf("POST %s: %w", route, err)
	}
	return nil
}

func newKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
