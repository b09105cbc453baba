// Package scoring estimates the relevance of an archived document to an
// event-centric collection, as in section 5 of Gossen, Demidova and Risse,
// "Extracting Event-Centric Document Collections from Large-Scale Web
// Archives" (TPDL 2017). The extraction orders its frontier by it.
//
// The temporal and topical relevance of a document d is
//
//	TTR(d) = alpha · TopicR(d) + (1 − alpha) · TempR(d)
//
// (ttr.go); alpha = 1 is the topical crawl C-F, alpha = 0 the temporal T-F,
// and Strategy (strategy.go) names these and the unfocused baseline.
// TempR (tempr.go) is 1 inside the event interval [t_s, t_e] and decays with
// the lead half-life g_l before it and the cool-down half-life g_r after it:
//
//	2^(−(t_s − t_d) / g_l)  before,   2^(−(t_d − t_e) / g_r)  after.
//
// TopicR (topicr.go) is the cosine of the document's term vector to the
// reference vector, divided by the reference documents' mean cosine and
// clipped to [0, 1]. Terms are stemmed unigrams and bigrams (analyzer.go,
// 18 Snowball languages), weighted (1 + ln tf) · idf · keyword boost
// (vector.go, idf.go, keywords.go). Link priorities, the relevance gate, the
// link model and relevance feedback of the focusing options are in
// links.go, calibrate.go, linkmodel.go and feedback.go.
//
// NewScorer does the once-per-specification work (analyzers, keywords,
// reference vectors); Scorer.Score rates a document and is safe for
// concurrent use; Scorer.Explain lists the terms behind a TopicR. The same
// input gives bit-identical scores. The analysis rules and the choices
// behind them are in docs/scoring.md.
package scoring
