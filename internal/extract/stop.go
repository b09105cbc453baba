package extract

// StopReason says why the extraction stops before round (method.md §3.6),
// given the documents collected and the frontier's size before it, or ""
// to go on. The driver applies it between jobs, and a job of several rounds
// (transforms/round.ExtractRounds) between its rounds: the same rule, so any
// number of rounds per job gives the same run.
func StopReason(targetSize, maxRounds, round, collected, frontier int) string {
	switch {
	case targetSize > 0 && collected >= targetSize:
		return "target size reached"
	case frontier == 0:
		return StopFrontierEmpty
	case maxRounds > 0 && round >= maxRounds:
		return "max rounds reached"
	}
	return ""
}

// BatchK is how many URLs a round takes: the batch size, or fewer when the
// target size is that close.
func BatchK(batchSize, targetSize, collected int) int {
	k := batchSize
	if targetSize > 0 && targetSize-collected < k {
		k = targetSize - collected
	}
	return k
}
