//go:build ignore

// general-dev writes the dev split of feedback-halves-main-third.md: the
// general questions (BIRD's human train questions, on stand-ins) that the
// main job's SFT never trained on (the 25% its split holds out, which KTO
// never sees either), kept for the N databases with the most of them.
//
//	go run docs/studies/feedback-halves-main-third/general-dev.go out/specialise/data 5 FILE
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "general-dev:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: go run general-dev.go DATA_DIR N_DATABASES OUT_FILE")
	}
	dir, out := args[0], args[2]
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 {
		return fmt.Errorf("N_DATABASES %q: want a positive integer", args[1])
	}
	// The main job's SFT split, as its checkpoint's notes record it: 75%, seed 1, general "general".
	d, err := train.LoadBench(train.BenchOptions{Dir: dir, General: "general", SFTFraction: 0.75, Seed: 1,
		DevSplit: "-", Format: policy.Format{Kind: policy.FormatCompact}})
	if err != nil {
		return err
	}
	defer d.Close()
	inSFT := map[int]bool{}
	for _, ex := range d.Train {
		if ex.QuestionID >= train.GeneralIDBase {
			inSFT[ex.QuestionID-train.GeneralIDBase] = true
		}
	}
	raw, err := os.ReadFile(dir + "/general.json")
	if err != nil {
		return err
	}
	var all []map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		return fmt.Errorf("%s/general.json: %w", dir, err)
	}
	var held []map[string]any
	count := map[string]int{}
	for _, e := range all {
		if !inSFT[int(e["question_id"].(float64))] {
			held = append(held, e)
			count[e["db_id"].(string)]++
		}
	}
	dbs := make([]string, 0, len(count))
	for db := range count {
		dbs = append(dbs, db)
	}
	slices.SortFunc(dbs, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	keep := map[string]bool{}
	for _, db := range dbs[:min(n, len(dbs))] {
		keep[db] = true
		fmt.Fprintf(os.Stderr, "%s %d\n", db, count[db])
	}
	held = slices.DeleteFunc(held, func(e map[string]any) bool { return !keep[e["db_id"].(string)] })
	fmt.Fprintf(os.Stderr, "general %d, in SFT %d, held out %d; kept %d on %d databases\n", len(all), len(inSFT), len(all)-len(inSFT), len(held), len(keep))
	b, err := json.MarshalIndent(held, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}
