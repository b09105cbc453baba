package specs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const badYAML = `name: bad
evnt: {}
event:
  start: 2009-09-27
  end: 2009-09-01
  foo: 1
lead_time: P1X
cooldown_time: P30D
alpha: 1.5
strategy: foo
batch_size: 0
outlinks: some
reference_documents:
  - url: https://a.example/
  - file: a.html
  - url: https://b.example/
    text: both
  - {}
  - url: not-a-url
seeds: [ftp://x.example/]
allow: [http://spiegel.de/]
languages: [de, EN]
max_document_bytes: 5 furlongs
normalize: maybe
`

func TestParseCollectsAllErrors(t *testing.T) {
	_, err := Parse([]byte(badYAML), "bad.yaml")
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("Parse = %v, want *Error", err)
	}
	if se.File != "bad.yaml" {
		t.Errorf("File = %q", se.File)
	}
	for _, want := range []string{
		`bad.yaml:2: unknown field "evnt" at top level (did you mean "event"?)`,
		`bad.yaml:6: unknown field "foo" in event`,
		`event.end (2009-09-01) is before event.start (2009-09-27)`,
		`bad.yaml:7: lead_time: "P1X" is not an ISO-8601 duration`,
		`bad.yaml:9: alpha: 1.5 is outside [0, 1]`,
		`bad.yaml:10: strategy: "foo" is not one of ctf, cf, tf, unfocused`,
		`batch_size: 0 is less than 1`,
		`outlinks: "some" is not one of main, all`,
		`bad.yaml:16: reference_documents[2]: needs exactly one of url, file, text (has 2)`,
		`reference_documents[3]: needs exactly one of url, file, text (has 0)`,
		`reference_documents[4].url: "not-a-url" is not an absolute http(s) URL`,
		`seeds[0]: "ftp://x.example/" is not an absolute http(s) URL`,
		`allow[0]: "http://spiegel.de/" is a URL, not a host or domain; write "spiegel.de"`,
		`languages[1]: "EN" is not a language code`,
		`max_document_bytes: "5 furlongs" is not a size`,
		`normalize: "maybe" is not true or false`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if len(se.Problems) != 16 {
		t.Errorf("%d problems, want 16:\n%v", len(se.Problems), err)
	}
}

func TestParseJSONErrors(t *testing.T) {
	in := `{"name": "j", "evnt": 1,
  "event": {"start": "2009-09-27", "foo": 2},
  "lead_time": "P1X", "cooldown_time": "P0D",
  "reference_documents": [{"text": "t"}], "seeds": ["http://a.example/"],
  "alpha": 1.5}`
	_, err := Parse([]byte(in), "bad.json")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`bad.json:1: unknown field "evnt" at top level`,
		`bad.json:2: unknown field "foo" in event`,
		`bad.json:3: lead_time: "P1X" is not an ISO-8601 duration`,
		`bad.json:5: alpha: 1.5 is outside [0, 1]`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// JSON syntax errors give the line.
	_, err = Parse([]byte("{\"name\": \"j\",\n \"alpha\": 0.5,\n}"), "syntax.json")
	if err == nil || !strings.Contains(err.Error(), "syntax.json:3: invalid JSON") {
		t.Errorf("syntax error = %v", err)
	}
}

func TestParseMissing(t *testing.T) {
	_, err := Parse([]byte("description: nothing else\n"), "empty.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"name: missing", "event: missing", "lead_time: missing", "cooldown_time: missing", "reference_documents: at least one"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for in, want := range map[string]string{
		"":                     "empty specification",
		"- a\n- b\n":           "must be a mapping of fields, not a list",
		"name: [x\n":           "invalid yaml",
		"name: a\nname: b\n":   `name: given twice (first on line 1)`,
		"name: a b\n":          `name: "a b" must consist of letters`,
		"name: a\nevent: 3\n":  "event: expected a mapping of fields",
		"name: a\nseeds: x\n":  "seeds: expected a list",
		"keywords: 3\n":        "keywords: expected a list of keywords or a mapping",
		"keywords: {xx1: [a]}": `keywords: "xx1" is not a language code`,
		"alpha: .nan\n":        `alpha: ".nan" is not a finite number`,
		"target_size: 1.5\n":   `target_size: "1.5" is not a whole number`,
		"deny: ['*.x.de']\n":   `deny[0]: "*.x.de": write "x.de"`,
		"name: a\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nreference_documents: [{text: t}]\n":                                                         "seeds: none given, and no reference document is a url or file",
		"name: a\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nreference_documents: [{url: 'http://a.example/'}]\nlanguages: [de]\ndefault_language: en\n": `default_language: "en" is not one of languages [de]`,
	} {
		_, err := Parse([]byte(in), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}

const goodYAML = `name: good
event:
  start: 2009-09-27
lead_time: P2W
cooldown_time: P0D
reference_documents:
  - url: https://de.example/wahl
    language: de
keywords: [Wahl, Kanzler]
max_document_bytes: 1MiB
normalize: false
allow: [Example.DE.]
`

func TestParseDefaultsAndShapes(t *testing.T) {
	s, err := Parse([]byte(goodYAML), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	if s.Strategy != want.Strategy || s.Alpha != 0.5 || s.BatchSize != 100 || s.TargetSize != 100000 ||
		s.ReferenceVectorSize != 100 || s.Outlinks != OutlinksAll || s.MaxRounds != 0 {
		t.Errorf("defaults not applied: %+v", s)
	}
	if s.Normalize || s.MaxDocumentBytes != 1<<20 {
		t.Errorf("normalize %v, max_document_bytes %d", s.Normalize, s.MaxDocumentBytes)
	}
	if s.Event.End != s.Event.Start {
		t.Errorf("event.end %v, want event.start", s.Event.End)
	}
	if s.DefaultLanguage != "de" || !reflect.DeepEqual(s.AllLanguages(), []string{"de"}) {
		t.Errorf("default language %q, all %v", s.DefaultLanguage, s.AllLanguages())
	}
	if got := s.Keywords.For("de"); !reflect.DeepEqual(got, []string{"Wahl", "Kanzler"}) {
		t.Errorf("keywords for de = %v", got)
	}
	if !reflect.DeepEqual(s.Allow, []string{"example.de"}) {
		t.Errorf("allow = %v", s.Allow)
	}
	if !s.SeedsFromReferences() || s.Format != FormatYAML {
		t.Errorf("SeedsFromReferences %v, Format %q", s.SeedsFromReferences(), s.Format)
	}
	if s.LeadTime.Duration() != 14*Day || !s.CooldownTime.IsZero() {
		t.Errorf("lead %v cooldown %v", s.LeadTime, s.CooldownTime)
	}
	// The end day is inside the event, the next midnight is not.
	day := time.Date(2009, 9, 27, 0, 0, 0, 0, time.UTC)
	if !s.InEvent(day) || !s.InEvent(day.Add(Day-time.Nanosecond)) || s.InEvent(day.Add(Day)) || s.InEvent(day.Add(-time.Nanosecond)) {
		t.Error("InEvent does not cover exactly the end day")
	}

	// Keywords per language, with "*" for all.
	s, err = Parse([]byte(`name: k
event: {start: 2021-01-01, end: 2021-01-31T12:00:00Z}
lead_time: P0D
cooldown_time: P1M
reference_documents: [{text: t}]
seeds: ['http://a.example/']
keywords: {"*": [all], de: [eins, all], en: [one]}
`), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Keywords.For("de"); !reflect.DeepEqual(got, []string{"all", "eins"}) {
		t.Errorf("For(de) = %v", got)
	}
	if got := s.Keywords.For("fr"); !reflect.DeepEqual(got, []string{"all"}) {
		t.Errorf("For(fr) = %v", got)
	}
	if s.Keywords.Len() != 4 || s.DefaultLanguage != "de" {
		t.Errorf("Len %d, default language %q", s.Keywords.Len(), s.DefaultLanguage)
	}
	if s.AnalyzerLanguage("en") != "en" || s.AnalyzerLanguage("fr") != "de" || s.AnalyzerLanguage("") != "de" {
		t.Error("AnalyzerLanguage does not fall back to the default language")
	}
	if _, end := s.EventInterval(); !end.Equal(time.Date(2021, 1, 31, 12, 0, 0, 1, time.UTC)) {
		t.Errorf("date-time end: EventInterval end = %v", end)
	}
}

func TestStrategyAlphaAndRounds(t *testing.T) {
	s := Defaults()
	s.Alpha = 0.3
	for st, want := range map[Strategy][2]any{
		StrategyCTF: {0.3, true}, StrategyCF: {1.0, true}, StrategyTF: {0.0, true}, StrategyUnfocused: {0.0, false},
	} {
		s.Strategy = st
		a, focused := s.EffectiveAlpha()
		if a != want[0] || focused != want[1] {
			t.Errorf("%s: EffectiveAlpha = %v, %v", st, a, focused)
		}
	}
	if s.RoundsExhausted(1 << 30) {
		t.Error("max_rounds 0 must not limit")
	}
	s.MaxRounds = 3
	if s.RoundsExhausted(2) || !s.RoundsExhausted(3) {
		t.Error("RoundsExhausted wrong for max_rounds 3")
	}
	if Strategy("x").Valid() || !StrategyTF.Valid() {
		t.Error("Strategy.Valid")
	}
}

func TestLoadResolvesPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ref.html"), []byte("<p>Wahl</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "name: f\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nreference_documents: [{file: ref.html}, {file: gone.html}]\ndictionary: idf.tsv\n"
	path := filepath.Join(dir, "f.spec") // no extension: the content decides
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path+": reference_documents[1].file: open "+filepath.Join(dir, "gone.html")) ||
		!strings.Contains(err.Error(), "dictionary: open "+filepath.Join(dir, "idf.tsv")) {
		t.Fatalf("Load = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gone.html"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "idf.tsv"), []byte("wahl\t3.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.ReferenceDocuments[0].File != filepath.Join(dir, "ref.html") || s.Dictionary != filepath.Join(dir, "idf.tsv") || s.Path != path {
		t.Errorf("paths not resolved: %+v", s)
	}
	if _, err := Load(filepath.Join(dir, "nonexistent.yaml")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"5242880": 5 << 20, "5MiB": 5 << 20, "5 MiB": 5 << 20, "500KB": 500000, "1GiB": 1 << 30, "7B": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "5 TB", "1.5MiB", "99999999999GiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) succeeded", in)
		}
	}
}
