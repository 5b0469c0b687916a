package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRolloutLines: a rollout is written as the line its writers have
// always written (online RL with its step, SampleRollouts with step 0, a
// feedback export with a label and source), and reads back the same.
func TestRolloutLines(t *testing.T) {
	reward, zero, yes, no := 1.0, 0.0, true, false
	step, first := int64(3), int64(0)
	tests := []struct {
		name string
		r    Rollout
		line string
	}{
		{"online", Rollout{QuestionID: 7, Variant: 1, Completion: "SELECT a FROM t WHERE b > 2", Reward: &reward, Correct: &yes, Truncated: true, Step: &step},
			`{"question_id":7,"variant":1,"completion":"SELECT a FROM t WHERE b \u003e 2","reward":1,"correct":true,"truncated":true,"step":3}`},
		{"sampled", Rollout{QuestionID: 0, Completion: "x", Reward: &zero, Correct: &no, Step: &first},
			`{"question_id":0,"variant":0,"completion":"x","reward":0,"correct":false,"step":0}`},
		{"feedback", Rollout{QuestionID: 12, Completion: "SELECT 1", Label: &no, Source: "model"},
			`{"question_id":12,"variant":0,"completion":"SELECT 1","label":false,"source":"model"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteRollouts(&buf, []Rollout{tt.r}); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.line+"\n" {
				t.Errorf("line\n%s\nwant\n%s", buf.String(), tt.line)
			}
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if err := AppendRollouts(path, []Rollout{tt.r}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, buf.Bytes()) {
				t.Errorf("appended %s", b)
			}
			got, err := ReadRollouts(context.Background(), path)
			want := tt.r
			want.Line = 1
			if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
				t.Errorf("read back %+v, %v; want %+v", got, err, want)
			}
		})
	}
}
