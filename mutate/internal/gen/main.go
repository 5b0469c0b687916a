// Command gen writes mutated prediction sets from a BIRD dev.json, in the
// file layouts the official evaluators read.
//
//	go run ./mutate/internal/gen -dev datasets/bird-dev-sample/dev.json -out /tmp/sets
//
// Under -out it writes:
//
//	bird/predict_dev.json  BIRD prediction file {"0": "SQL\t----- bird -----\tdb_id", ...},
//	                       keys in numeric order (BIRD pairs predictions with gold lines by
//	                       position in the file, not by key)
//	bird/dev_gold.sql      gold-parallel file, line i = "gold SQL\tdb_id" for prediction i
//	bird/diff.json         [{"difficulty": ...}] per prediction, for --diff_json_path
//	bird/preds.jsonl       one JSON object per prediction: index, question_id, db_id,
//	                       difficulty, kind, gold, pred
//	spider/dev.json        [{"db_id", "question", "query"}] per prediction (gold repeated)
//	spider/gold.txt        line i = "gold SQL\tdb_id"
//	spider/pred.txt        line i = predicted SQL
//	unsafe/...             the same BIRD files and preds.jsonl for the write and runaway
//	                       kinds: never give these to an evaluator that opens the real
//	                       databases read-write
//
// With -spider-layout DIR it also writes the unmutated questions in Spider
// layout (dev.json with db_id/question/query/question_id, gold.txt).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/mutate"
)

type birdQuestion struct {
	QuestionID int    `json:"question_id"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence"`
	SQL        string `json:"SQL"`
	Difficulty string `json:"difficulty"`
}

func main() {
	dev := flag.String("dev", "datasets/bird-dev-sample/dev.json", "BIRD dev.json")
	out := flag.String("out", "", "output directory (required)")
	per := flag.Int("per", 6, "mutated predictions per question (the gold comes on top)")
	unsafePer := flag.Int("unsafe-per", 2, "write/runaway predictions per question")
	seed := flag.Int64("seed", 1, "random seed")
	spiderLayout := flag.String("spider-layout", "", "also write the plain questions in Spider layout here")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	if err := run(*dev, *out, *per, *unsafePer, *seed, *spiderLayout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(devPath, out string, per, unsafePer int, seed int64, spiderLayout string) error {
	b, err := os.ReadFile(devPath)
	if err != nil {
		return err
	}
	var qs []birdQuestion
	if err := json.Unmarshal(b, &qs); err != nil {
		return fmt.Errorf("%s: %w", devPath, err)
	}
	golds := make([]mutate.Gold, len(qs))
	for i, q := range qs {
		golds[i] = mutate.Gold{QuestionID: q.QuestionID, DBID: q.DBID, SQL: q.SQL, Difficulty: q.Difficulty}
	}

	safe := mutate.BuildSet(golds, per, seed)
	if err := writeBird(filepath.Join(out, "bird"), safe); err != nil {
		return err
	}
	if err := writeSpider(filepath.Join(out, "spider"), safe, qs); err != nil {
		return err
	}
	unsafe := mutate.BuildSet(golds, unsafePer, seed+1, mutate.UnsafeKinds()...)
	if err := writeBird(filepath.Join(out, "unsafe"), unsafe); err != nil {
		return err
	}
	if spiderLayout != "" {
		if err := writeSpiderLayout(spiderLayout, qs); err != nil {
			return err
		}
	}
	fmt.Printf("gen: %d questions, %d safe predictions, %d unsafe predictions\n", len(qs), len(safe), len(unsafe))
	return nil
}

// checkLine rejects SQL that would break the line-oriented formats (both
// official readers split on newlines and tabs and strip each line).
func checkLine(s string) error {
	if strings.ContainsAny(s, "\t\r\n") {
		return fmt.Errorf("SQL contains a tab or newline: %q", s)
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("empty SQL")
	}
	return nil
}

func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(buf.String(), "\n")
}

func writeBird(dir string, ps []mutate.Prediction) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var pred, gold, diff, meta strings.Builder
	pred.WriteString("{\n")
	diff.WriteString("[\n")
	for i, p := range ps {
		if err := checkLine(p.Pred); err != nil {
			return fmt.Errorf("prediction %d: %w", i, err)
		}
		if err := checkLine(p.Gold); err != nil {
			return fmt.Errorf("gold of prediction %d: %w", i, err)
		}
		sep := ",\n"
		if i == len(ps)-1 {
			sep = "\n"
		}
		fmt.Fprintf(&pred, "    %s: %s%s", jsonString(strconv.Itoa(i)), jsonString(p.Pred+"\t----- bird -----\t"+p.DBID), sep)
		fmt.Fprintf(&gold, "%s\t%s\n", p.Gold, p.DBID)
		fmt.Fprintf(&diff, "    {\"difficulty\": %s}%s", jsonString(p.Difficulty), sep)
		line, err := json.Marshal(struct {
			Index      int    `json:"index"`
			QuestionID int    `json:"question_id"`
			DBID       string `json:"db_id"`
			Difficulty string `json:"difficulty"`
			Kind       string `json:"kind"`
			Gold       string `json:"gold"`
			Pred       string `json:"pred"`
		}{i, p.QuestionID, p.DBID, p.Difficulty, p.Kind, p.Gold, p.Pred})
		if err != nil {
			return err
		}
		meta.Write(line)
		meta.WriteByte('\n')
	}
	pred.WriteString("}\n")
	diff.WriteString("]\n")
	for name, s := range map[string]string{
		"predict_dev.json": pred.String(),
		"dev_gold.sql":     gold.String(),
		"diff.json":        diff.String(),
		"preds.jsonl":      meta.String(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type spiderEntry struct {
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Query      string `json:"query"`
	QuestionID int    `json:"question_id,omitempty"`
}

func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeSpider(dir string, ps []mutate.Prediction, qs []birdQuestion) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries := make([]spiderEntry, len(ps))
	var gold, pred strings.Builder
	for i, p := range ps {
		entries[i] = spiderEntry{DBID: p.DBID, Question: qs[p.GoldIndex].Question, Query: p.Gold}
		fmt.Fprintf(&gold, "%s\t%s\n", p.Gold, p.DBID)
		fmt.Fprintf(&pred, "%s\n", p.Pred)
	}
	js, err := marshalIndent(entries)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"dev.json": js,
		"gold.txt": []byte(gold.String()),
		"pred.txt": []byte(pred.String()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeSpiderLayout(dir string, qs []birdQuestion) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries := make([]spiderEntry, len(qs))
	var gold strings.Builder
	for i, q := range qs {
		if err := checkLine(q.SQL); err != nil {
			return fmt.Errorf("question %d: %w", q.QuestionID, err)
		}
		entries[i] = spiderEntry{DBID: q.DBID, Question: q.Question, Query: q.SQL, QuestionID: q.QuestionID}
		fmt.Fprintf(&gold, "%s\t%s\n", q.SQL, q.DBID)
	}
	js, err := marshalIndent(entries)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), js, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "gold.txt"), []byte(gold.String()), 0o644)
}
