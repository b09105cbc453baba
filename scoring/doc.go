// Package scoring estimates the relevance of an archived document to an
// event-centric collection, as in section 5 of Gossen, Demidova and Risse,
// "Extracting Event-Centric Document Collections from Large-Scale Web
// Archives" (TPDL 2017). The extraction orders its frontier by it.
//
// # Relevance
//
// The temporal and topical relevance of a document d is the linear
// combination
//
//	TTR(d) = alpha · TopicR(d) + (1 − alpha) · TempR(d)
//
// (ttr.go). alpha = 0.5 weighs both equally (the paper's CT-F); alpha = 1
// is a purely topical crawl (C-F) and alpha = 0 a purely temporal one
// (T-F); the unfocused baseline uses no relevance at all and crawls in
// discovery order. Strategy and Priority (strategy.go) name these four.
//
// # Temporal relevance
//
// TempR (tempr.go) compares the document time t_d (its publication date,
// else its capture time; found by the caller) with the event interval
// [t_s, t_e]: 1 inside, and outside it decays exponentially with the lead
// half-life g_l before and the cool-down half-life g_r after:
//
//	2^(−(t_s − t_d) / g_l)  before,   2^(−(t_d − t_e) / g_r)  after.
//
// The paper writes e^(−Δt/γ) but defines γ as the Δt at which relevance
// has halved; we use the half-life form, as the original implementation
// did. A half-life of zero ("P0D", no lead time) gives 0 on that side. The
// value never exceeds 1. Both ends are instants inside the interval; an
// end date covering its whole day is passed as InclusiveEnd(day).
//
// # Topical relevance
//
// TopicR (topicr.go) is the cosine similarity of the document's term
// vector to the reference vector of the collection.
//
// Analysis (analyzer.go). Text is split into words at Unicode word
// boundaries: runs of letters, digits and combining marks. An apostrophe
// between two letters stays inside a word and is then resolved per
// language: French, Italian and Irish drop elided articles and
// prepositions (l', dell', d'), English leaves "'s" to its stemmer, and
// the other languages keep the part before the apostrophe (German "geht's",
// Dutch "auto's", Turkish "Türkiye'nin"). Hyphens split words without
// separating them, so "Baden-Württemberg" gives two adjacent tokens.
// Words are lower-cased (Turkish with dotted and dotless i), words on the
// language's stop list, single characters and words over 64 characters
// are dropped, and the rest are stemmed with the Snowball stemmer of the
// language. German stems are folded as in the original (ä→a, ö→o, ü→u,
// ß→ss) after stemming: the German Snowball stemmer is written for
// German spelling (ß in its prelude, umlauts as vowels of its regions) and
// itself ends by removing the umlauts, so "Wahlen", "Wähler" and "wählen"
// all become "wahl"; folding its output keeps that guarantee for every
// stem.
//
// Eighteen languages have an analyzer: every language with a Snowball
// stemmer in github.com/blevesearch/snowballstem (Arabic, Danish, Dutch,
// English, Finnish, French, German, Hungarian, Irish, Italian, Norwegian,
// Portuguese, Romanian, Russian, Spanish, Swedish, Tamil, Turkish). We use
// these generated stemmers for all of them rather than
// github.com/kljensen/snowball for the seven it also covers: they are
// compiled from the Snowball project's own algorithm sources, agree with
// kljensen/snowball on English text, and are about twice as fast. The stop
// lists (package stopwords) were written for this project. A document in
// any other language, or with no language, is analysed as the
// specification's default language.
//
// Terms. The terms of a text are its stems (unigrams) and the pairs of
// adjacent stems (bigrams, written "stem1 stem2"). Every word takes a
// position, including the stop words and dropped words, and so does every
// clause or line break (sentence terminators, commas, semicolons, colons,
// vertical bars, newlines); two stems are adjacent only when nothing stands
// between them. So "Wahl des Bundestags" has no bigram, while "Costa
// Concordia" has "costa concordia".
//
// Weights (vector.go, idf.go, keywords.go). A term t with frequency tf in
// a text weighs (1 + ln tf) · idf(t) · tw_t. The paper's idf came from
// Google Books n-grams; we build it from the archive itself, idf = ln(N /
// df), or read the original's "term<TAB>idf" files. Terms missing from the
// dictionary get its largest idf. The keyword boost tw_t is 2 when t is a
// keyword's own longest term, 1.5 when t shares a token with a keyword,
// and 1 otherwise; it applies to reference and document vectors alike.
//
// Reference vector. The vectors of the reference documents of a language
// are added and truncated to their 100 heaviest terms (configurable), or a
// precomputed vector is taken from the specification. The original's
// precomputed vectors were stemmed by Lucene's light German stemmer, which
// keeps suffixes such as -ung that Snowball removes; 90% of the 3,200
// terms of its specifications are already our stems, and Restem maps the
// rest ("schiffsfuhrung" → "schiffsfuhr") so that they can match. A
// document is
// compared with the reference vector of its language, else with that of
// the default language.
//
// Normalisation. Raw cosines of relevant pages lie around 0.02–0.26 while
// TempR spans 0–1, so in CT-F the time term would swamp the topic term. As
// in the original, TopicR is therefore the cosine divided by the mean
// cosine of the reference documents to their own reference vector, clipped
// to [0, 1]; it can be turned off.
//
// # Determinism
//
// The same input gives bit-identical scores. Vectors are sorted by term;
// sums over a document run in the order of first occurrence of its terms;
// sums over reference documents add in increasing order, so shuffling the
// reference documents or keywords changes nothing; rankings break ties by
// term.
//
// # Use
//
// NewScorer (scorer.go) does the heavy, once-per-specification work:
// analysers, keywords, reference vectors. Scorer.Score then rates a
// document from its main text, language and time, and is safe for
// concurrent use; Scorer.Explain lists the terms behind a TopicR
// (explain.go).
package scoring
