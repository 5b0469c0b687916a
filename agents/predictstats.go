package agents

import (
	"fmt"
	"io"
	"time"
)

// WriteText prints what Predict did: n predictions written to out in
// took, the tokens and their rate, and how the prompts were fitted.
func (st PredictStats) WriteText(w io.Writer, n int, out string, took time.Duration) {
	fmt.Fprintf(w, "wrote %d predictions to %s in %s (%d prompt + %d completion tokens, %.0f completion tok/s)\n",
		n, out, took.Round(time.Millisecond), st.PromptTokens, st.CompletionTokens, float64(st.CompletionTokens)/took.Seconds())
	fmt.Fprintf(w, "prompts fitted to the %d-token context: %d pruned, %d without column comments, %d with max tokens cut; %d questions failed (empty sql, \"error\" in %s)\n",
		st.Context, st.Pruned, st.Bare, st.Shortened, st.Failed, out)
}
