package feedback

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlrl/sqlrl/internal/pgtest"
)

// TestMain lets TestKill9 run this test binary as a writer process.
func TestMain(m *testing.M) {
	if loc := os.Getenv("FEEDBACK_TEST_WRITER"); loc != "" {
		os.Exit(writer(loc))
	}
	os.Exit(m.Run())
}

// writer records answers with feedback until killed, printing "ack A F"
// after each pair of writes has returned.
func writer(loc string) int {
	ctx := context.Background()
	s, err := Open(ctx, loc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		a, err := s.RecordAnswer(ctx, answer(i, "db", OutcomeOK))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f, err := s.RecordFeedback(ctx, Feedback{AnswerID: a.ID, Verdict: VerdictDown, CorrectedSQL: "SELECT 1", Correction: CorrectionOK})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(out, "ack %d %d\n", a.ID, f.ID)
		out.Flush()
	}
}

// TestKill9 kills a process writing feedback with SIGKILL mid-stream, twice
// on the same store; every write it acknowledged is in the store afterwards.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts writer processes")
	}
	locs := map[string]string{"sqlite": filepath.Join(t.TempDir(), "feedback.db")}
	if os.Getenv("SQLRL_PG_DSN") != "" {
		locs["postgres"] = pgStoreDSN(t)
	}
	for name, loc := range locs {
		t.Run(name, func(t *testing.T) {
			acked := map[int64]int64{}
			for round, stopAt := range []int{200, 500} {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "FEEDBACK_TEST_WRITER="+loc)
				cmd.Stderr = os.Stderr
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				sc := bufio.NewScanner(stdout)
				n := 0
				for sc.Scan() {
					f := strings.Fields(sc.Text())
					if len(f) != 3 || f[0] != "ack" {
						t.Fatalf("writer said %q", sc.Text())
					}
					a, _ := strconv.ParseInt(f[1], 10, 64)
					fb, _ := strconv.ParseInt(f[2], 10, 64)
					acked[a] = fb
					if n++; n == stopAt {
						break
					}
				}
				if n < stopAt {
					t.Fatalf("round %d: writer stopped after %d acks", round, n)
				}
				cmd.Process.Signal(syscall.SIGKILL)
				// Acks the writer printed before it died count too.
				for sc.Scan() {
					if f := strings.Fields(sc.Text()); len(f) == 3 {
						a, _ := strconv.ParseInt(f[1], 10, 64)
						fb, _ := strconv.ParseInt(f[2], 10, 64)
						acked[a] = fb
					}
				}
				cmd.Wait()
			}
			s, err := Open(context.Background(), loc)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			missing := 0
			for a, fb := range acked {
				e, err := s.Answer(context.Background(), a)
				if err != nil || len(e.Feedback) != 1 || e.Feedback[0].ID != fb {
					missing++
				}
			}
			t.Logf("%d acknowledged answer+feedback pairs over 2 kills", len(acked))
			if missing > 0 {
				t.Errorf("%d of %d acknowledged writes missing after SIGKILL", missing, len(acked))
			}
		})
	}
}

// pgStoreDSN makes a database of its own for the test.
func pgStoreDSN(t *testing.T) string { return pgtest.NewDB(t).Admin }
