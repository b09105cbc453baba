package specs

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// rawOriginal is the original format as plain JSON, to compare against.
type rawOriginal struct {
	Name               string              `json:"name"`
	SeedURLs           []string            `json:"seedUrls"`
	ReferenceDocuments []string            `json:"referenceDocuments"`
	Keywords           map[string][]string `json:"keywords"`
	DefaultLanguage    string              `json:"defaultLanguage"`
	ReferenceVectors   map[string]struct {
		Elements map[string]float64 `json:"elements"`
	} `json:"referenceVectors"`
}

// TestOriginalsMatchTopics loads each of the original authors'
// specifications and checks its temporal scope against topics.tsv (columns
// Code, From, Until, Before, After, Description, Wikipedia) and its topical
// scope against the raw JSON.
func TestOriginalsMatchTopics(t *testing.T) {
	dir := sharedtest.Path(t, "specs/archive-recrawling")
	f, err := os.Open(filepath.Join(dir, "topics.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	if got := sc.Text(); !strings.HasPrefix(got, "Code\tFrom\tUntil\tBefore\tAfter\t") {
		t.Fatalf("topics.tsv header = %q", got)
	}
	rows := map[string]bool{}
	for sc.Scan() {
		col := strings.Split(sc.Text(), "\t")
		if len(col) < 5 {
			t.Fatalf("topics.tsv row %q has %d columns", sc.Text(), len(col))
		}
		code, from, until, before, after := col[0], col[1], col[2], col[3], col[4]
		rows[code] = true
		t.Run(code, func(t *testing.T) {
			path := filepath.Join(dir, code+".json")
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != FormatOriginal || s.Name != code {
				t.Errorf("Format %q, Name %q", s.Format, s.Name)
			}
			if s.Event.Start.String() != from || s.Event.End.String() != until || !s.Event.Start.DateOnly || !s.Event.End.DateOnly {
				t.Errorf("event %s..%s, topics.tsv %s..%s", s.Event.Start, s.Event.End, from, until)
			}
			start, end := s.EventInterval()
			wantEnd, _ := time.Parse(time.DateOnly, until)
			if start.Format(time.DateOnly) != from || !end.Equal(wantEnd.AddDate(0, 0, 1)) {
				t.Errorf("EventInterval = %v, %v", start, end)
			}
			for _, hl := range []struct {
				name string
				got  Duration
				want string
			}{{"lead", s.LeadTime, before}, {"cooldown", s.CooldownTime, after}} {
				days := strings.TrimSuffix(strings.TrimPrefix(hl.want, "P"), "D")
				var n int
				for _, c := range days {
					n = n*10 + int(c-'0')
				}
				if hl.got.String() != hl.want || hl.got.Duration() != time.Duration(n)*Day || hl.got.IsZero() != (n == 0) {
					t.Errorf("%s time %v (%v), topics.tsv %s", hl.name, hl.got, hl.got.Duration(), hl.want)
				}
			}

			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var raw rawOriginal
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			if len(raw.SeedURLs) > 0 && len(s.Seeds) == 0 || len(s.Seeds)+len(s.Warnings) != len(raw.SeedURLs) {
				t.Errorf("%d seeds and %d warnings, the file has %d seeds", len(s.Seeds), len(s.Warnings), len(raw.SeedURLs))
			}
			if len(s.ReferenceDocuments) != len(raw.ReferenceDocuments) {
				t.Errorf("%d reference documents, the file has %d", len(s.ReferenceDocuments), len(raw.ReferenceDocuments))
			}
			for i, u := range raw.ReferenceDocuments {
				if i < len(s.ReferenceDocuments) && s.ReferenceDocuments[i].URL != u {
					t.Errorf("reference document %d = %+v, want %s", i, s.ReferenceDocuments[i], u)
				}
			}
			if s.DefaultLanguage != raw.DefaultLanguage {
				t.Errorf("default language %q, want %q", s.DefaultLanguage, raw.DefaultLanguage)
			}
			for lang, kws := range raw.Keywords {
				if len(kws) > 0 && len(s.Keywords.For(lang)) != len(kws) {
					t.Errorf("keywords[%s]: %d, the file has %d", lang, len(s.Keywords.For(lang)), len(kws))
				}
			}
			if len(raw.ReferenceVectors) == 0 || len(s.ReferenceVectors) != len(raw.ReferenceVectors) {
				t.Errorf("%d reference vectors, the file has %d", len(s.ReferenceVectors), len(raw.ReferenceVectors))
			}
			for lang, v := range raw.ReferenceVectors {
				got := s.ReferenceVectors[lang]
				if len(got) == 0 || len(got) != len(v.Elements) {
					t.Errorf("reference vector %s has %d terms, the file %d", lang, len(got), len(v.Elements))
				}
				for term, w := range v.Elements {
					if got[term] != w {
						t.Errorf("reference vector %s[%q] = %v, the file %v", lang, term, got[term], w)
					}
				}
			}
		})
	}
	// Every specification has its row. (The folder holds 32, one more than
	// the paper's count suggests; all are checked.)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		if code := strings.TrimSuffix(filepath.Base(f), ".json"); !rows[code] {
			t.Errorf("%s has no row in topics.tsv", f)
		}
	}
	if len(files) < 31 || len(rows) != len(files) {
		t.Errorf("topics.tsv has %d rows, the folder %d JSON files", len(rows), len(files))
	}
}

func TestOriginalDroppedSeedWarns(t *testing.T) {
	path := sharedtest.Path(t, "specs/archive-recrawling/wolympics2010.json")
	s, err := LoadOriginal(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "seedUrls[50]") || !strings.Contains(s.Warnings[0], "seed dropped") {
		t.Errorf("Warnings = %q", s.Warnings)
	}
}

func TestOriginalErrors(t *testing.T) {
	in := `{"name": "x", "seedUrls": ["http://a.de/"], "referenceDocuments": ["http://b.de/"],
 "referenceTime": {"start": "2010-01-02", "end": "2010-01-01", "beforeFuzziness": "P1X"},
 "referenceVectors": {"de": {"elements": {"a": 1}, "norm": 2}, "en": {}},
 "keywords": {"de": ["a"]}, "defaultLanguage": "de", "extra": 1}`
	_, err := Parse([]byte(in), "orig.json")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`orig.json:2: referenceTime.beforeFuzziness: "P1X" is not an ISO-8601 duration`,
		`referenceTime.afterFuzziness: missing`,
		`referenceTime.end (2010-01-01) is before referenceTime.start (2010-01-02)`,
		`orig.json:3: unknown field "norm" in referenceVectors.de`,
		`orig.json:4: unknown field "extra" at top level`,
		`referenceVectors.en.elements: missing`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// Locale keys and correction factors.
	in = `{"name": "x", "referenceDocuments": ["http://b.de/"],
 "referenceTime": {"start": "2010-01-01", "end": "2010-01-01", "beforeFuzziness": "P0D", "afterFuzziness": "P7D"},
 "referenceVectors": {"de_DE": {"elements": {"a": 1.5}}}, "correctionFactors": {"de_DE": 0.25}}`
	s, err := Parse([]byte(in), "orig.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.ReferenceVectors["de-DE"]["a"] != 1.5 || s.CorrectionFactors["de-DE"] != 0.25 || s.DefaultLanguage != "de-DE" {
		t.Errorf("got %+v", s)
	}
}
