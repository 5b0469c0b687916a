package agents

// ReadRecordFiles reads the rollout files in order (ReadRecords) into
// one list.
func ReadRecordFiles(paths []string) ([]*Record, error) {
	var recs []*Record
	for _, p := range paths {
		r, err := ReadRecords(p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r...)
	}
	return recs, nil
}
