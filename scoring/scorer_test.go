package scoring

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// syntheticGerman returns a text of n words: a quarter German stop words,
// the rest drawn with Zipf's law from a vocabulary of 3,000 made-up
// compounds, sentences of twelve words.
func syntheticGerman(n int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	syllables := []string{"ber", "lin", "wah", "len", "stadt", "haus", "kanz", "ler", "par", "tei", "bund", "tag", "mini", "ster", "reg", "ier", "ung", "ver", "fas", "sung", "wäh", "stra", "ße", "grö"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for j := 0; j < 2+r.Intn(3); j++ {
			b.WriteString(syllables[r.Intn(len(syllables))])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	stop := []string{"der", "die", "und", "in", "den", "von", "zu", "das", "mit", "sich"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if r.Intn(4) == 0 {
			b.WriteString(stop[r.Intn(len(stop))])
		} else {
			w := vocab[zipf.Uint64()]
			if i%12 == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
		}
		if i%12 == 11 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// BenchmarkScoreText scores a 5,000-word document against a reference
// built from three 3,000-word documents, with keywords and an idf
// dictionary.
func BenchmarkScoreText(b *testing.B) {
	c := NewDocFreq("de")
	a, err := NewAnalyzer("de")
	if err != nil {
		b.Fatal(err)
	}
	for i := int64(0); i < 20; i++ {
		c.AddDocument(BagOf(a.Analyze(syntheticGerman(500, 100+i))))
	}
	s := mustScorer(b, Config{
		DefaultLanguage: "de",
		References:      []ReferenceText{{Text: syntheticGerman(3000, 1)}, {Text: syntheticGerman(3000, 2)}, {Text: syntheticGerman(3000, 3)}},
		Keywords:        map[string][]string{"de": {"Berlinwahlen", "Bundestag Kanzler"}},
		Dictionaries:    map[string]*Dictionary{"de": c.Dictionary()},
		Time:            eventScope,
		Alpha:           DefaultAlpha,
	})
	text := syntheticGerman(5000, 7)
	at := eventStart.AddDate(0, 1, 0)
	if sc := s.Score(text, "de", at); sc.TopicR <= 0 || sc.Tokens < 3000 {
		b.Fatalf("unexpected score %+v", sc)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		s.Score(text, "de", at)
		n++
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "docs/s")
}

// originalSpec is the part of the original system's specification format
// this package consumes.
type originalSpec struct {
	ReferenceTime struct {
		Start, End                      string
		BeforeFuzziness, AfterFuzziness string
	} `json:"referenceTime"`
	ReferenceVectors map[string]struct {
		Elements map[string]float64 `json:"elements"`
	} `json:"referenceVectors"`
	Keywords        map[string][]string `json:"keywords"`
	DefaultLanguage string              `json:"defaultLanguage"`
}

func loadOriginalSpecs(t *testing.T) map[string]originalSpec {
	dir := sharedtest.Path(t, "specs/archive-recrawling")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) < 31 {
		t.Fatalf("%d original specifications, want at least 31 (%v)", len(files), err)
	}
	specs := make(map[string]originalSpec)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s originalSpec
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		specs[strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	return specs
}

// The specifications of the original ship precomputed German reference
// vectors stemmed by Lucene's light German stemmer. Most of their terms
// are already stems of our German analyzer; the rest are restemmed, so
// every specification yields a usable scorer, and its own event's text
// scores higher than another event's text.
func TestOriginalSpecifications(t *testing.T) {
	specs := loadOriginalSpecs(t)
	a := mustAnalyzer(t, "de")
	total, ours := 0, 0
	scorers := make(map[string]*Scorer)
	for name, spec := range specs {
		elements := spec.ReferenceVectors["de"].Elements
		for term := range elements {
			total++
			if tokens := a.Analyze(term); len(tokens) == 1 && tokens[0].Term == term {
				ours++
			}
		}
		start, err := time.Parse("2006-01-02", spec.ReferenceTime.Start)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		end, err := time.Parse("2006-01-02", spec.ReferenceTime.End)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lead, cooldown := days(t, spec.ReferenceTime.BeforeFuzziness), days(t, spec.ReferenceTime.AfterFuzziness)
		s, err := NewScorer(Config{
			DefaultLanguage:  spec.DefaultLanguage,
			ReferenceVectors: map[string]map[string]float64{"de": elements},
			Keywords:         spec.Keywords,
			Time:             TimeScope{Start: start, End: InclusiveEnd(end), Lead: lead, Cooldown: cooldown},
			Alpha:            DefaultAlpha,
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := s.References()[0].Vector.Len(); n < 80 || n > DefaultTopN {
			t.Errorf("%s: %d reference terms after restemming, want 80–100", name, n)
		}
		scorers[name] = s
	}
	t.Logf("%d of %d original reference terms (%.1f%%) are stems of our German analyzer", ours, total, 100*float64(ours)/float64(total))
	if float64(ours) < 0.85*float64(total) {
		t.Errorf("only %d of %d original terms are our stems", ours, total)
	}

	costa := "Das Kreuzfahrtschiff Costa Concordia der Reederei Costa Crociere lief vor der Insel Giglio auf ein Riff. " +
		"Kapitän Francesco Schettino verließ das Schiff, die Küstenwache in Livorno koordinierte die Rettung der Passagiere. " +
		"Die Bergung des Wracks dauerte bis 2014."
	election := "Bei der Bundestagswahl 2009 erreichte die Union mit Angela Merkel die meisten Zweitstimmen. " +
		"Die SPD mit Frank-Walter Steinmeier verlor deutlich, FDP, Linke und Grüne gewannen Sitze im Bundestag. " +
		"Es folgte eine Koalition aus CDU, CSU und FDP."
	at := time.Date(2012, 1, 20, 0, 0, 0, 0, time.UTC)
	cc, ce := scorers["costa"].Score(costa, "de", at), scorers["costa"].Score(election, "de", at)
	ec, ee := scorers["election2009"].Score(costa, "de", at), scorers["election2009"].Score(election, "de", at)
	t.Logf("costa spec: costa text %.3f, election text %.3f; election2009 spec: costa text %.3f, election text %.3f", cc.Cosine, ce.Cosine, ec.Cosine, ee.Cosine)
	if !(cc.TopicR > ce.TopicR && ee.TopicR > ec.TopicR) {
		t.Errorf("TopicR does not separate the events: costa spec %v vs %v, election2009 spec %v vs %v", cc.TopicR, ce.TopicR, ee.TopicR, ec.TopicR)
	}
	// The costa event is 13 January 2012 with cool-down P30D; 20 January
	// (midnight) is 6 days after the end of the end day: 2^(-6/30).
	if want := math.Exp2(-6.0 / 30); math.Abs(cc.TempR-want) > 1e-9 {
		t.Errorf("costa TempR 6 days after the event = %v, want %v", cc.TempR, want)
	}
}

// days parses the original's "P<n>D" durations (the only form its
// specifications use); the specs package owns general ISO-8601 parsing.
func days(t *testing.T, iso string) time.Duration {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(iso, "P"), "D"))
	if err != nil || !strings.HasPrefix(iso, "P") || !strings.HasSuffix(iso, "D") {
		t.Fatalf("duration %q is not P<n>D", iso)
	}
	return time.Duration(n) * 24 * time.Hour
}
