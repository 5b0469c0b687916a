package agents

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/internal/fakeopenai"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
)

var _ policy.Generator = (*Remote)(nil)

// numbered answers choice j of a prompt with its text and j.
func numbered(q fakeopenai.Request, j int) string { return fmt.Sprintf("%s#%d", q.Text(), j) }

// TestRemote: against the fake server, both modes map the options to the
// request and the answer back to completions, and every way a server
// fails ends in the right completions (after retries) or an error that
// names the prompt.
func TestRemote(t *testing.T) {
	sampled := policy.SampleOptions{N: 3, Temperature: 0.7, TopP: 0.9, MaxTokens: 20, Seed: 11}
	tests := []struct {
		name    string
		fake    fakeopenai.Options
		remote  Remote
		prompts []string
		o       policy.SampleOptions
		ctx     time.Duration // a deadline for the call when set
		// want is each prompt's completions as "text/finish/logprob"
		want     [][]string
		wantErr  []string // substrings of the error
		deadline bool     // the error is the context's deadline
		requests int      // -1: any number
	}{
		{name: "completions, n samples", fake: fakeopenai.Options{Answer: numbered}, prompts: []string{"a", "b"}, o: sampled,
			want: [][]string{{"a#0/stop/0", "a#1/stop/0", "a#2/stop/0"}, {"b#0/stop/0", "b#1/stop/0", "b#2/stop/0"}}, requests: 2},
		{name: "chat, n samples", fake: fakeopenai.Options{Answer: numbered}, remote: Remote{Chat: true, System: "be brief"},
			prompts: []string{"q"}, o: sampled, want: [][]string{{"q#0/stop/0", "q#1/stop/0", "q#2/stop/0"}}, requests: 1},
		{name: "stop and length", fake: fakeopenai.Options{Answer: func(_ fakeopenai.Request, j int) string {
			return []string{"SELECT 1;\nSELECT 2", "SELECT name FROM singer"}[j]
		}}, prompts: []string{"q"}, o: policy.SampleOptions{N: 2, Temperature: 1, MaxTokens: 11, Stop: []string{";"}},
			want: [][]string{{"SELECT 1/stop/0", "SELECT name/length/0"}}, requests: 1},
		{name: "logprobs summed, completions", fake: fakeopenai.Options{Answer: numbered}, remote: Remote{LogProbs: true},
			prompts: []string{"ab"}, o: policy.SampleOptions{N: 2, Temperature: 1},
			want: [][]string{{"ab#0/stop/-1", "ab#1/stop/-1"}}, requests: 1},
		{name: "logprobs summed, chat", fake: fakeopenai.Options{Answer: numbered}, remote: Remote{Chat: true, LogProbs: true},
			prompts: []string{"abcd"}, o: policy.SampleOptions{N: 1, Temperature: 1},
			want: [][]string{{"abcd#0/stop/-1.5"}}, requests: 1},
		{name: "a server that ignores n is asked again", fake: fakeopenai.Options{Answer: numbered, MaxChoices: 1},
			prompts: []string{"q"}, o: sampled, want: [][]string{{"q#0/stop/0", "q#0/stop/0", "q#0/stop/0"}}, requests: 3},
		{name: "greedy asks once", fake: fakeopenai.Options{Answer: numbered}, prompts: []string{"q"},
			o: policy.SampleOptions{N: 3}, want: [][]string{{"q#0/stop/0", "q#0/stop/0", "q#0/stop/0"}}, requests: 1},
		{name: "HTTP 500 then an answer", fake: fakeopenai.Options{Answer: numbered, Fault: fakeopenai.First(1, fakeopenai.ServerError)},
			prompts: []string{"q"}, o: policy.SampleOptions{N: 1, Temperature: 1}, want: [][]string{{"q#0/stop/0"}}, requests: 2},
		{name: "garbage", fake: fakeopenai.Options{Fault: fakeopenai.Always(fakeopenai.Garbage)}, prompts: []string{"q"},
			wantErr: []string{"remote completions, prompt 0 of 1", "answer is not a completion", "<html>"}, requests: 3},
		{name: "permanent 400", fake: fakeopenai.Options{Fault: fakeopenai.Always(fakeopenai.BadRequest)}, remote: Remote{Chat: true},
			prompts: []string{"q"}, wantErr: []string{"remote chat, prompt 0 of 1", "HTTP 400", "refuses"}, requests: 1},
		{name: "empty choices", fake: fakeopenai.Options{Fault: fakeopenai.Always(fakeopenai.NoChoices)}, prompts: []string{"q"},
			wantErr: []string{"prompt 0 of 1", "no choices"}, requests: 3},
		{name: "hang ended by the deadline", fake: fakeopenai.Options{Fault: fakeopenai.Always(fakeopenai.Hang)}, prompts: []string{"q"},
			ctx: 50 * time.Millisecond, wantErr: []string{"prompt 0 of 1"}, deadline: true, requests: 1},
		{name: "slow server, deadline", fake: fakeopenai.Options{Delay: time.Hour}, prompts: []string{"q"},
			ctx: 50 * time.Millisecond, wantErr: []string{"prompt 0 of 1"}, deadline: true, requests: 1},
		{name: "one prompt of three fails", fake: fakeopenai.Options{Answer: numbered, Fault: func(_ int, q fakeopenai.Request) fakeopenai.Fault {
			if q.Prompt == "bad" {
				return fakeopenai.BadRequest
			}
			return fakeopenai.OK
		}}, prompts: []string{"a", "bad", "c"}, wantErr: []string{"prompt 1 of 3", "HTTP 400"}, requests: -1},
		{name: "beam search", prompts: []string{"q"}, o: policy.SampleOptions{Beams: 4}, wantErr: []string{"beam search"}, requests: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(tt.fake)
			defer srv.Close()
			r := tt.remote
			r.Client = &llmclient.Client{BaseURL: srv.URL, Model: "m", Retries: 2, Backoff: time.Millisecond}
			ctx := context.Background()
			if tt.ctx > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctx)
				defer cancel()
			}
			outs, st, err := r.Generate(ctx, tt.prompts, tt.o)
			if n := srv.Requests(); tt.requests >= 0 && n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; completions %v", outs)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				if tt.deadline != errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error %v: is the deadline %v, want %v", err, !tt.deadline, tt.deadline)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != len(tt.want) {
				t.Fatalf("%d prompts answered, want %d", len(outs), len(tt.want))
			}
			completion := 0
			for i, cs := range outs {
				var got []string
				for _, c := range cs {
					got = append(got, fmt.Sprintf("%s/%s/%g", c.Text, c.Finish, c.LogProb))
					completion += len([]rune(c.Text))
				}
				if strings.Join(got, " | ") != strings.Join(tt.want[i], " | ") {
					t.Errorf("prompt %d: %q, want %q", i, got, tt.want[i])
				}
			}
			if tt.o.Temperature > 0 && st.CompletionTokens != completion { // the fake counts runes
				t.Errorf("stats %+v, want %d completion tokens", st, completion)
			}
			checkRequests(t, srv.Log(), r, tt.prompts[0], tt.o, tt.fake.Fault != nil)
		})
	}
}

// checkRequests checks that each request carried the options.
// first is the first prompt; with retried, requests may repeat (and a
// repeat carries the same seed).
func checkRequests(t *testing.T, log []fakeopenai.Request, r Remote, first string, o policy.SampleOptions, retried bool) {
	t.Helper()
	maxTokens, n := o.MaxTokens, o.N
	if maxTokens == 0 {
		maxTokens = 256
	}
	if o.Temperature == 0 {
		n = 1
	}
	seeds := map[int64]bool{}
	for _, q := range log {
		if q.Chat() != r.Chat || q.Model != "m" || q.Temperature == nil || *q.Temperature != o.Temperature ||
			q.MaxTokens != maxTokens || strings.Join(q.Stop, "|") != strings.Join(o.Stop, "|") ||
			q.Logprobs != r.LogProbs || q.Seed == nil || q.N < 1 || q.N > n {
			t.Errorf("request %+v for options %+v", q, o)
			continue
		}
		if (q.TopP != nil) != (o.TopP > 0) || q.TopP != nil && *q.TopP != o.TopP {
			t.Errorf("top_p %v for %g", q.TopP, o.TopP)
		}
		if seeds[*q.Seed] && !retried {
			t.Errorf("seed %d sent twice", *q.Seed)
		}
		seeds[*q.Seed] = true
		if r.Chat {
			want := []openai.Message{{Role: "user", Content: q.Text()}}
			if r.System != "" {
				want = append([]openai.Message{{Role: "system", Content: r.System}}, want...)
			}
			if fmt.Sprint(q.Messages) != fmt.Sprint(want) {
				t.Errorf("messages %v, want %v", q.Messages, want)
			}
		}
	}
	if !seeds[int64(o.Seed)] {
		t.Errorf("seeds %v lack the first prompt's %d", seeds, o.Seed)
	}
	if q := log[0]; q.Text() == first && q.N != n {
		t.Errorf("first request asks for %d, want %d", q.N, n)
	}
}

// TestRemoteServeModel runs Remote against `sqlrl serve-model`'s handler
// in process. Its sampling is deterministic by design (completion j of a
// one-prompt request draws from its own generator seeded by (seed, 0, j),
// whatever the batching), so a one-prompt call gives exactly what the
// policy gives locally for the same prompt, seed and options, in both
// modes (chat: the policy's chat prompt of the one user message).
func TestRemoteServeModel(t *testing.T) {
	pol := policytest.Peaked(t)
	ms := &modelserver.Server{Policy: pol, Name: "m"}
	defer ms.Close()
	srv := httptest.NewServer(ms.Handler())
	defer srv.Close()
	client := &llmclient.Client{BaseURL: srv.URL + "/v1", Model: "m", Retries: 1, Backoff: time.Millisecond}
	noGuide := map[string]any{"guide": false} // the server's schema guide is not Remote's to ask for
	chatPrompt := pol.Info.Prompt.ChatPrompt([]prompt.Message{{Role: "user", Content: "question: How many customers?"}})
	tests := []struct {
		name   string
		remote Remote
		prompt string // what Remote sends
		local  string // what the policy is given
		o      policy.SampleOptions
	}{
		{"completions, sampled", Remote{Extra: noGuide}, policytest.Texts[0], policytest.Texts[0],
			policy.SampleOptions{N: 4, Temperature: 1, TopP: 0.95, MaxTokens: 12, Seed: 5}},
		{"completions, stop", Remote{Extra: noGuide}, policytest.Texts[0], policytest.Texts[0],
			policy.SampleOptions{N: 3, Temperature: 0.8, MaxTokens: 12, Seed: 9, Stop: []string{" "}}},
		{"completions, greedy", Remote{Extra: noGuide}, policytest.Texts[0], policytest.Texts[0],
			policy.SampleOptions{N: 2, MaxTokens: 12, Seed: 1}},
		{"chat, sampled", Remote{Chat: true, Extra: noGuide}, "question: How many customers?", chatPrompt,
			policy.SampleOptions{N: 3, Temperature: 1, MaxTokens: 10, Seed: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.remote
			r.Client = client
			got, st, err := r.Generate(context.Background(), []string{tt.prompt}, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			want, wst, err := pol.Generate(context.Background(), []string{tt.local}, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(got[0]) != tt.o.N {
				t.Fatalf("%d completions, want %d", len(got[0]), tt.o.N)
			}
			distinct := map[string]bool{}
			for j := range got[0] {
				g, w := got[0][j], want[0][j]
				if g.Text != jsonText(w.Text) || g.Finish != w.Finish {
					t.Errorf("completion %d: remote %q (%s), local %q (%s)", j, g.Text, g.Finish, w.Text, w.Finish)
				}
				distinct[g.Text] = true
			}
			if tt.o.Temperature > 0 && len(distinct) < 2 {
				t.Logf("all %d samples equal (%q): the comparison is weak", tt.o.N, got[0][0].Text)
			}
			if tt.o.Temperature > 0 && st != wst {
				t.Errorf("stats remote %+v, local %+v", st, wst)
			}
		})
	}
}

// jsonText is s as it reads after a trip through JSON, which replaces
// each byte of invalid UTF-8 by U+FFFD (an untrained policy writes byte
// tokens that are not whole characters).
func jsonText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		b.WriteRune(r) // utf8.RuneError for an invalid byte, n == 1
		s = s[n:]
	}
	return b.String()
}

// TestSeedFor: prompt 0's first request keeps the caller's seed (the
// local comparison above rests on it); other requests get seeds distinct
// from it and from each other, all valid OpenAI seeds.
func TestSeedFor(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, math.MaxUint64} {
		seen := map[int64]bool{}
		for i := range 20 {
			for round := range 20 {
				s := seedFor(seed, i, round)
				if s < 0 || seen[s] {
					t.Fatalf("seed %d, prompt %d, round %d: %d (negative or repeated)", seed, i, round, s)
				}
				seen[s] = true
			}
		}
		if seedFor(seed, 0, 0) != int64(seed&math.MaxInt64) {
			t.Errorf("seed %d: first request sends %d", seed, seedFor(seed, 0, 0))
		}
	}
}
