package scoring

// DefaultAlpha is the paper's weight of topical against temporal relevance:
// both equally important.
const DefaultAlpha = 0.5

// TTR is the temporal and topical relevance of the paper's equation (1):
// alpha · topicR + (1 − alpha) · tempR. alpha = 1 is a purely topical
// (C-F) and alpha = 0 a purely temporal (T-F) relevance.
func TTR(alpha, topicR, tempR float64) float64 {
	return alpha*topicR + (1-alpha)*tempR
}
