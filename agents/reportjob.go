package agents

// ReportJob is `sqlrl pipeline report`: a rollout file's report, its
// strategies recomputed when a ranker or a review weight is given afresh.
type ReportJob struct {
	// Ranker is a learned ranker file to apply; empty: none.
	Ranker string
	// ReviewWeight is the review strategy's weight, applied to every
	// record when Recompute is set or a Ranker given.
	ReviewWeight float64
	Recompute    bool
}

// Build reads the rollouts at path, selects among their candidates and
// reports them.
func (j ReportJob) Build(path string) ([]*Record, *Report, error) {
	recs, err := ReadRecords(path)
	if err != nil {
		return nil, nil, err
	}
	var rk *Ranker
	if j.Ranker != "" {
		if rk, err = LoadRanker(j.Ranker); err != nil {
			return nil, nil, err
		}
	}
	Reselect(recs, Selection{Ranker: rk, ReviewWeight: j.ReviewWeight}, j.Recompute || rk != nil)
	return recs, BuildReport(recs), nil
}
