package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestEncode: what a client sends and a server answers is OpenAI's shape;
// unset optional fields are not sent.
func TestEncode(t *testing.T) {
	seed, one := int64(7), 1
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"chat request", ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "q"}}, MaxTokens: 8},
			`{"model":"m","messages":[{"role":"user","content":"q"}],"temperature":0,"max_tokens":8}`},
		{"completion request", CompletionRequest{Model: "m", Prompt: "p", Temperature: 0.5, Stop: []string{";"},
			Sampling: Sampling{N: 2, TopP: 0.9, Seed: &seed}, Logprobs: &one, Extra: map[string]any{"guide": false}},
			`{"model":"m","prompt":"p","temperature":0.5,"stop":[";"],"n":2,"top_p":0.9,"seed":7,"logprobs":1}`},
		{"chat answer", ChatResponse{ID: "x", Object: "chat.completion", Model: "m",
			Choices: []ChatChoice{{Message: AnswerMessage{Role: "assistant", Content: "a"}, FinishReason: "stop"}}, Usage: &Usage{1, 2, 3}},
			`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"a","refusal":null},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`},
		{"error", NewError(503, "busy"), `{"error":{"message":"busy","type":"server_error","param":null,"code":null}}`},
		{"bad request", NewError(400, "no"), `{"error":{"message":"no","type":"invalid_request_error","param":null,"code":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil || string(b) != tt.want {
				t.Errorf("%s, %v\nwant %s", b, err, tt.want)
			}
		})
	}
}

// TestDecodeParams: a server reads a prompt or stop as a string or a
// list, content as a string or text parts, and tells unset fields apart.
func TestDecodeParams(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		prompt   []string
		text     string // of the first message
		logprobs bool
		n        *int
		err      bool
	}{
		{name: "one prompt", body: `{"prompt":"a","logprobs":0}`, prompt: []string{"a"}, logprobs: true},
		{name: "prompts", body: `{"prompt":["a","b"],"n":2,"logprobs":null}`, prompt: []string{"a", "b"}, n: new(2)},
		{name: "parts", body: `{"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url"},{"type":"text","text":"y"}]}],"logprobs":true}`, text: "xy", logprobs: true},
		{name: "string content", body: `{"messages":[{"role":"user","content":"z"}],"logprobs":false}`, text: "z"},
		{name: "number prompt", body: `{"prompt":3}`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q struct {
				CompletionParams
				Messages []InputMessage `json:"messages"`
			}
			err := json.Unmarshal([]byte(tt.body), &q)
			if (err != nil) != tt.err {
				t.Fatalf("error %v", err)
			}
			if tt.err {
				return
			}
			if !reflect.DeepEqual([]string(q.Prompt), tt.prompt) || q.WantLogprobs() != tt.logprobs || !reflect.DeepEqual(q.N, tt.n) {
				t.Errorf("prompt %q, logprobs %v, n %v", q.Prompt, q.WantLogprobs(), q.N)
			}
			if len(q.Messages) > 0 {
				if text, err := q.Messages[0].Text(); text != tt.text || err != nil {
					t.Errorf("text %q, %v; want %q", text, err, tt.text)
				}
			}
		})
	}
	if _, err := (InputMessage{Content: json.RawMessage(`3`)}).Text(); err == nil {
		t.Error("a number as content")
	}
}
