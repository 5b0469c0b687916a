package askserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sqlrl/sqlrl/confidence"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// voteBudget bounds running an answer's samples to compare their results
// with its own (and to vote): past it the answer is judged without them.
const voteBudget = consensus.Budget

// generateSampled asks the generator for the answer's SQL and, when it can
// sample and generator.samples is on, for the samples of the same
// question at the same time (the native generator decodes both from one
// fitted prompt). A sampling failure is logged and leaves the answer
// without samples.
func (s *Server) generateSampled(ctx context.Context, q Question) (string, []string, error) {
	sampler, ok := s.gen.(SQLSampler)
	n := s.cfg.Generator.SampleCount()
	if !ok || n == 0 {
		sql, err := s.gen.Generate(ctx, q)
		return sql, nil, err
	}
	gs, ok := s.gen.(generateSampler)
	if !ok {
		gs = apart{s.gen, sampler}
	}
	sql, samples, err := gs.GenerateSampled(ctx, q, SampleOptions{N: n, Temperature: s.cfg.Generator.SampleTemperature, Seed: seedOf(q)})
	if errors.Is(err, errSampling) {
		s.log.Warn("sampling failed", "db", q.DB, "err", err)
		return sql, nil, nil
	}
	return sql, samples, err
}

// judge gathers the answer's confidence signals (the error in plain words;
// the result's shape, its filter literals looked up in the tables read,
// the samples' agreement with it, from votes when a vote counted them)
// and combines them with the server's rule.
func (s *Server) judge(ctx context.Context, d *database, sql string, samples []string, votes *consensus.Votes, res *sqlexec.Result, truncated bool, ei *ErrorInfo) (confidence.Judgement, confidence.Signals) {
	var sig confidence.Signals
	if ei != nil {
		sig.ErrorClass, sig.ErrorText = ei.Class, confidence.Explain(ei.Class, ei.Message, sql)
		return s.rule.Judge(sig), sig
	}
	sig.SetResult(len(res.Columns), res.Rows)
	if tables := s.schemas.get().tables[d.name]; tables != nil {
		sig.Literals = confidence.CheckLiterals(ctx, s.dbs, d.name, sql, tables, confidence.CheckOptions{Postgres: d.kind == "postgres"})
	}
	switch n := s.cfg.Generator.SampleCount(); {
	case len(samples) > 0 && 2*len(samples) < n:
		// A server that ignores `n` answers with one choice: one sample
		// agreeing is no evidence the rule was tuned on.
		sig.SamplesNote = fmt.Sprintf("only %d of the %d samples asked for came back to cross-check it", len(samples), n)
	case votes != nil:
		// counted by the vote that chose the answer
		sig.SetVotes(*votes)
	case len(samples) > 0:
		o := consensus.Options{Timeout: time.Duration(s.cfg.Limits.StatementTimeout)}
		if !truncated {
			// The answer ran already: only its samples run again.
			o.Results = map[string]*sqlexec.Result{sql: res}
		}
		vctx, cancel := context.WithTimeout(ctx, voteBudget)
		v, err := consensus.Count(vctx, s.dbs, d.name, append([]string{sql}, samples...), o)
		cancel()
		if err != nil {
			sig.SamplesNote = "the samples could not be checked in time"
		} else {
			sig.SetVotes(v)
		}
	case n > 0:
		if _, ok := s.gen.(SQLSampler); ok {
			sig.SamplesNote = "the samples to cross-check it could not be drawn"
		}
	}
	return s.rule.Judge(sig), sig
}

// storedConfidence is a judgement as the store keeps it (JSON).
func storedConfidence(j confidence.Judgement) string {
	b, err := json.Marshal(j)
	if err != nil {
		return ""
	}
	return string(b)
}

// confidenceOf reads a stored judgement back; nil for answers recorded
// before judgements were kept (or a value that does not read).
func confidenceOf(stored string) *confidence.Judgement {
	if stored == "" {
		return nil
	}
	var j confidence.Judgement
	if err := json.Unmarshal([]byte(stored), &j); err != nil || j.Level == "" {
		return nil
	}
	if j.Reasons == nil {
		j.Reasons = []string{}
	}
	return &j
}
