package policy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// CompletionBudget is the smallest SampleOptions.MaxTokens under which a
// completion whose text is text can end by itself: its tokens and then the
// end token, which the sampler must still be allowed to draw (a completion
// that holds MaxTokens tokens is cut there, Finish "length"). Budgets and
// lengths measured for RL's sampling (sqlrl bench stats -tokenizer) count
// this way, so that "the gold fits the budget" means greedy decoding of
// the gold would stop.
func CompletionBudget(tok *tokenizer.Tokenizer, text string) int { return len(tok.Encode(text)) + 1 }

// SampleOptions configure Generate.
type SampleOptions struct {
	// N is the number of completions per prompt (default 1).
	N int
	// Temperature 0 is greedy decoding.
	Temperature float64
	// TopP keeps the smallest set of tokens whose probability reaches it
	// (nucleus sampling); 0 or 1 keeps all.
	TopP float64
	// MaxTokens bounds each completion (default 256). A completion of n
	// tokens ends by itself (Finish "stop") only under a budget of n+1:
	// CompletionBudget.
	MaxTokens int
	// Stop strings end a completion (not included in it), as the end token
	// does.
	Stop []string
	// Seed makes sampling reproducible: completion j of prompt i draws
	// from its own generator seeded by (Seed, i, j), whatever the batching.
	Seed uint64
	// Batch is the number of sequences decoded together (default 32).
	Batch int
	// Constrain, when set, gives each completion of prompt i its own
	// constraint (nil: none): decoding then takes the most likely token the
	// constraint accepts, and samples from the accepted part of the
	// distribution (renormalised, top-p applied to it). Reported
	// log-probabilities stay the model's own.
	Constrain func(prompt int) Constraint
	// Supports records, for a constrained completion sampled at
	// temperature 1, the set of tokens each token was drawn from
	// (Completion.Support), which a LogProbScorer needs to give a loss the
	// log-probabilities of the distribution that sampled.
	Supports bool
	// Beams > 1 decodes by beam search (temperature 0 only): the Beams
	// most likely continuations are kept at each step, and the N most
	// likely finished completions are returned. Under a constraint it finds
	// what greedy decoding misses when the model's first choice is refused
	// and its second leads nowhere. Constraints must then implement
	// CloneConstraint.
	Beams int
}

// A CloneConstraint is a Constraint that can be copied, as beam search
// needs to follow several continuations of one text.
type CloneConstraint interface {
	Constraint
	Clone() Constraint
}

// A Constraint restricts what a completion may say, such as SQL that names
// only one database's tables and columns (sqlparse.Guide). Pieces are the
// tokens' bytes.
type Constraint interface {
	// Allow reports whether piece may come next; with end, whether the
	// completion may end right after it.
	Allow(piece string, end bool) bool
	// Advance commits a piece that Allow accepted.
	Advance(piece string)
}

// Completion is one sampled completion.
type Completion struct {
	Text   string  `json:"text"`
	Tokens []int32 `json:"-"`
	// LogProb is the sum of the sampled tokens' log-probabilities under
	// the model (temperature 1), end token included when emitted.
	LogProb float64 `json:"logprob"`
	// Finish is "stop" (end token or stop string) or "length".
	Finish string `json:"finish_reason"`
	// Support (with SampleOptions.Supports) has an entry per token drawn,
	// the end token included when drawn: the tokens the constraint let the
	// sampler draw from, or nil where it refused none (the whole
	// distribution but tokens under 1e-6 of it); Support itself is nil
	// when no entry is set. It is what Sequence.Support takes.
	Support [][]int32 `json:"-"`
	// SampledLogProb (with SampleOptions.Supports) is LogProb under the
	// distributions the tokens were drawn from: each renormalised over its
	// support.
	SampledLogProb float64 `json:"-"`
}

// Stats counts a Generate call's work.
type Stats struct {
	PromptTokens, CompletionTokens int
}

// request is one Generate call's work: its prompts, options, results.
type request struct {
	enc  [][]int32
	o    SampleOptions
	out  [][]Completion
	st   Stats
	left int // jobs not finished
	ctx  context.Context
	err  error
	done chan struct{} // closed when left reaches 0 or err is set (Batcher)
}

// job is one completion of one prompt of a request.
type job struct {
	req            *request
	prompt, sample int
	rng            *rand.Rand
	out            []int32
	logp           float64
	slot           int
	con            Constraint
	support        [][]int32 // SampleOptions.Supports
	logq           float64
}

// newRequest checks and tokenizes prompts and options.
func (p *Policy) newRequest(ctx context.Context, prompts []string, o SampleOptions) (*request, error) {
	if o.N <= 0 {
		o.N = 1
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 256
	}
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.TopP <= 0 || o.TopP > 1 {
		o.TopP = 1
	}
	if o.Temperature < 0 {
		return nil, errors.New("policy: negative temperature")
	}
	r := &request{o: o, ctx: ctx, enc: make([][]int32, len(prompts)), out: make([][]Completion, len(prompts))}
	maxT := p.Model.Cfg.MaxSeq
	for i, s := range prompts {
		r.enc[i] = p.Tok.Encode(s)
		if len(r.enc[i]) == 0 {
			r.enc[i] = []int32{p.Tok.EOT()}
		}
		if len(r.enc[i])+1 > maxT {
			return nil, fmt.Errorf("policy: prompt %d has %d tokens; the model's context is %d", i, len(r.enc[i]), maxT)
		}
		r.st.PromptTokens += len(r.enc[i])
		r.out[i] = make([]Completion, o.N)
	}
	return r, nil
}

// jobs returns the request's completions to decode, each with its own
// generator seeded by (Seed, prompt, sample) and its own constraint.
func (r *request) jobs() []*job {
	var q []*job
	for i := range r.enc {
		for j := 0; j < r.o.N; j++ {
			jb := &job{req: r, prompt: i, sample: j, rng: rand.New(rand.NewPCG(r.o.Seed^0x9e3779b97f4a7c15, uint64(i)<<20|uint64(j)))}
			if r.o.Constrain != nil {
				jb.con = r.o.Constrain(i)
			}
			q = append(q, jb)
		}
	}
	r.left = len(q)
	return q
}

// Generate samples o.N completions for each prompt, decoding up to o.Batch
// sequences at once with a key/value cache: prompts are prefilled together
// in one pass (once per prompt; its samples copy the cache), then every
// active sequence advances one token per pass, and a finished sequence's
// slot is refilled from the queue at once.
func (p *Policy) Generate(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
	r, err := p.newRequest(ctx, prompts, o)
	if err != nil {
		return nil, Stats{}, err
	}
	o = r.o
	if o.Beams > 1 {
		if o.Temperature != 0 {
			return nil, r.st, errors.New("policy: beam search is for temperature 0")
		}
		if o.N > o.Beams {
			return nil, r.st, fmt.Errorf("policy: %d completions from %d beams", o.N, o.Beams)
		}
		out, err := p.beamSearch(ctx, r.enc, o, &r.st)
		return out, r.st, err
	}
	queue := r.jobs()
	B := min(o.Batch, len(queue))
	if B == 0 {
		return r.out, r.st, nil
	}
	d := p.newDecoder(B)
	for len(queue) > 0 || d.busy() {
		if err := ctx.Err(); err != nil {
			return nil, r.st, err
		}
		if err := d.admit(&queue); err != nil {
			return nil, r.st, err
		}
		if err := d.step(); err != nil {
			return nil, r.st, err
		}
	}
	return r.out, r.st, nil
}

// decoder holds B cache slots and the jobs decoding in them; the jobs may
// come from different requests, each with its own options.
type decoder struct {
	p      *Policy
	cache  *nn.Cache
	B, V   int
	logits []float32
	last   []float32 // logits after each slot's last token
	active []*job    // by slot
	free   []int
	probs  []float32
	idx    []int
	pk     *picker
}

func (p *Policy) newDecoder(B int) *decoder {
	m := p.Model
	V := m.Cfg.Vocab
	d := &decoder{p: p, cache: m.NewCache(B, m.Cfg.MaxSeq), B: B, V: V, logits: make([]float32, B*V),
		last: make([]float32, B*V), active: make([]*job, B), probs: make([]float32, V), idx: make([]int, V), pk: newPicker(p, V)}
	for s := B - 1; s >= 0; s-- {
		d.free = append(d.free, s)
	}
	return d
}

// busy reports whether some slot is decoding.
func (d *decoder) busy() bool { return len(d.free) < d.B }

// admit moves jobs from the front of the queue into free slots: one
// prefill per prompt, copies for its other samples.
func (d *decoder) admit(queue *[]*job) error {
	q := *queue
	if len(q) == 0 || len(d.free) == 0 {
		return nil
	}
	V := d.V
	var slots []int
	var toks [][]int32
	var groups [][]*job
	for len(q) > 0 && len(d.free) > 0 {
		j := q[0]
		if n := len(groups); n > 0 && groups[n-1][0].req == j.req && groups[n-1][0].prompt == j.prompt {
			groups[n-1] = append(groups[n-1], j)
		} else {
			groups = append(groups, []*job{j})
			toks = append(toks, j.req.enc[j.prompt])
		}
		q = q[1:]
		j.slot = d.free[len(d.free)-1]
		d.free = d.free[:len(d.free)-1]
		d.active[j.slot] = j
		d.cache.Reset(j.slot)
	}
	*queue = q
	for _, g := range groups {
		slots = append(slots, g[0].slot)
	}
	if err := d.cache.Append(slots, toks, d.logits); err != nil {
		return err
	}
	for gi, g := range groups {
		for _, j := range g {
			d.cache.CopySlot(j.slot, g[0].slot)
			copy(d.last[j.slot*V:(j.slot+1)*V], d.logits[gi*V:(gi+1)*V])
		}
	}
	return nil
}

// drop frees the slots of a request's active jobs (a cancelled request).
func (d *decoder) drop(r *request) {
	for s, j := range d.active {
		if j != nil && j.req == r {
			d.active[s] = nil
			d.free = append(d.free, s)
		}
	}
	d.sortFree()
}

func (d *decoder) sortFree() {
	slices.Sort(d.free)
	slices.Reverse(d.free)
}

// step samples one token for every active job, finishes the jobs that
// end, and appends the others' tokens to the cache. A request whose last
// job finishes has its done channel closed.
func (d *decoder) step() error {
	p, V := d.p, d.V
	eot := p.Tok.EOT()
	var slots []int
	var toks [][]int32
	for s, j := range d.active {
		if j == nil {
			continue
		}
		o := &j.req.o
		z := d.last[s*V : (s+1)*V]
		d.pk.record = o.Supports
		tok, lp := d.pk.pick(z, j.con, o.Temperature, o.TopP, j.rng, d.probs, d.idx)
		if j.con != nil && tok != eot {
			j.con.Advance(d.pk.piece(tok))
		}
		j.logp += lp
		if o.Supports {
			j.support = append(j.support, d.pk.support)
			j.logq += d.pk.logQ
		}
		var c *Completion
		if tok == eot {
			c = &Completion{Text: p.Tok.Decode(j.out), Tokens: j.out, LogProb: j.logp, Finish: "stop"}
		} else {
			j.out = append(j.out, tok)
			if len(o.Stop) > 0 {
				if text, hit := cutStop(p.Tok.Decode(j.out), o.Stop); hit {
					c = &Completion{Text: text, Tokens: j.out, LogProb: j.logp, Finish: "stop"}
				}
			}
			if c == nil && (len(j.out) >= o.MaxTokens || d.cache.Len(s)+1 >= d.cache.MaxLen()) {
				c = &Completion{Text: p.Tok.Decode(j.out), Tokens: j.out, LogProb: j.logp, Finish: "length"}
			}
		}
		if c != nil && o.Supports {
			c.SampledLogProb = j.logq
			if slices.ContainsFunc(j.support, func(s []int32) bool { return s != nil }) {
				c.Support = j.support
			}
		}
		if c != nil {
			r := j.req
			r.out[j.prompt][j.sample] = *c
			r.st.CompletionTokens += len(j.out)
			d.active[s] = nil
			d.free = append(d.free, s)
			if r.left--; r.left == 0 && r.done != nil {
				close(r.done)
			}
			continue
		}
		slots = append(slots, s)
		toks = append(toks, []int32{tok})
	}
	if len(slots) > 0 {
		if err := d.cache.Append(slots, toks, d.logits); err != nil {
			return err
		}
		for i, s := range slots {
			copy(d.last[s*V:(s+1)*V], d.logits[i*V:(i+1)*V])
		}
	}
	d.sortFree()
	return nil
}

// cutStop returns text up to the first stop string, and whether one was
// found.
func cutStop(text string, stop []string) (string, bool) {
	cut := -1
	for _, s := range stop {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return text, false
	}
	return text[:cut], true
}
