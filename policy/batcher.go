package policy

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Batcher decodes the requests of many callers together in one set of
// cache slots (continuous batching): a request's completions take slots as
// soon as any free up, whatever else is decoding, so that concurrent
// clients share each step's matrix products instead of waiting for one
// another. Results are those of Policy.Generate: each completion draws
// from its own generator, seeded by the request's seed, prompt and sample.
// Beam search is not batched. A Batcher is safe for concurrent use.
type Batcher struct {
	p     *Policy
	slots int
	in    chan *request
	quit  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

// NewBatcher starts a batcher decoding up to slots sequences at once
// (default 32).
func (p *Policy) NewBatcher(slots int) *Batcher {
	if slots <= 0 {
		slots = 32
	}
	b := &Batcher{p: p, slots: slots, in: make(chan *request), quit: make(chan struct{})}
	b.wg.Add(1)
	go b.loop()
	return b
}

// ErrClosed is returned by a Batcher that was closed.
var ErrClosed = errors.New("policy: batcher closed")

// Generate is Policy.Generate, decoded alongside other callers' requests;
// o.Batch is ignored (the batcher's slots decide).
func (b *Batcher) Generate(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
	if o.Beams > 1 {
		return nil, Stats{}, errors.New("policy: beam search is not batched")
	}
	r, err := b.p.newRequest(ctx, prompts, o)
	if err != nil {
		return nil, Stats{}, err
	}
	r.done = make(chan struct{})
	select {
	case b.in <- r:
	case <-b.quit:
		return nil, r.st, ErrClosed
	case <-ctx.Done():
		return nil, r.st, ctx.Err()
	}
	<-r.done
	if r.err != nil {
		return nil, r.st, r.err
	}
	return r.out, r.st, nil
}

// Close stops the batcher; requests in flight fail with ErrClosed.
func (b *Batcher) Close() {
	b.once.Do(func() { close(b.quit) })
	b.wg.Wait()
}

func (b *Batcher) loop() {
	defer b.wg.Done()
	d := b.p.newDecoder(b.slots)
	var queue []*job
	var reqs []*request
	add := func(r *request) {
		js := r.jobs()
		if len(js) == 0 {
			close(r.done)
			return
		}
		queue = append(queue, js...)
		reqs = append(reqs, r)
	}
	fail := func(r *request, err error) {
		r.err = err
		d.drop(r)
		queue = slices.DeleteFunc(queue, func(j *job) bool { return j.req == r })
		close(r.done)
	}
	for {
		if !d.busy() && len(queue) == 0 {
			select {
			case r := <-b.in:
				add(r)
			case <-b.quit:
				return
			}
		}
	drain:
		for {
			select {
			case r := <-b.in:
				add(r)
			case <-b.quit:
				for _, r := range reqs {
					if r.left > 0 && r.err == nil {
						fail(r, ErrClosed)
					}
				}
				return
			default:
				break drain
			}
		}
		// forget finished requests, fail cancelled ones
		reqs = slices.DeleteFunc(reqs, func(r *request) bool {
			if r.left == 0 || r.err != nil {
				return true
			}
			if err := r.ctx.Err(); err != nil {
				fail(r, err)
				return true
			}
			return false
		})
		err := d.admit(&queue)
		if err == nil {
			err = d.step()
		}
		if err != nil { // a model error fails everything in flight
			for _, r := range reqs {
				if r.left > 0 && r.err == nil {
					fail(r, err)
				}
			}
			reqs = reqs[:0]
			d = b.p.newDecoder(b.slots)
		}
	}
}
