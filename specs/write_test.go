package specs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// roundTrip writes s as YAML and as JSON, parses both and compares them to s.
func roundTrip(t *testing.T, s *Spec) {
	t.Helper()
	want := *s
	want.Path, want.Format, want.Warnings = "", "", nil

	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(buf.Bytes(), "written.yaml")
	if err != nil {
		t.Fatalf("re-reading the written YAML: %v\n%s", err, buf.String())
	}
	if got.Format != FormatYAML {
		t.Errorf("written YAML read as %q", got.Format)
	}
	got.Format = ""
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("YAML round trip differs:\n got %+v\nwant %+v", *got, want)
	}

	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON Spec
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatalf("re-reading the written JSON: %v\n%s", err, data)
	}
	fromJSON.Format = ""
	if !reflect.DeepEqual(fromJSON, want) {
		t.Errorf("JSON round trip differs:\n got %+v\nwant %+v", fromJSON, want)
	}
}

func TestWriteRoundTripExamples(t *testing.T) {
	files, err := filepath.Glob("examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, s)
		})
	}
}

func TestWriteRoundTripOriginal(t *testing.T) {
	s, err := Load(sharedtest.Path(t, "specs/archive-recrawling/election2009.json"))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, s)
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lead_time: P180D\n", "cooldown_time: P30D\n", "reference_vectors:\n  de:\n", "keywords:\n  de:\n", "strategy: ctf\n", "alpha: 0.5\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("written spec lacks %q", want)
		}
	}
}

func TestWriteKeywordShapes(t *testing.T) {
	s := Defaults()
	s.Keywords = Keywords{AllLanguages: {"a", "b"}}
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "keywords:\n  - a\n  - b\n") {
		t.Errorf("keywords for all languages not written as a list:\n%s", buf.String())
	}
	data, _ := json.Marshal(s)
	if !strings.Contains(string(data), `"keywords":["a","b"]`) {
		t.Errorf("JSON: %s", data)
	}
}

// everyField sets every field of the format to a value other than its
// default, so a field that Write forgets fails the round trip.
const everyField = `name: every.field
description: all fields set
event: {start: 2010-01-01T10:00:00+01:00, end: 2010-02-01}
lead_time: P1Y2M3DT4H5M6S
cooldown_time: PT36H
reference_documents:
  - {url: 'https://a.example/x', language: en}
  - {file: /tmp/ref.html}
  - {text: inline, language: de}
keywords: {"*": [x], de: [y]}
seeds: ['http://s.example/']
strategy: tf
alpha: 0.25
target_size: 7
batch_size: 3
max_rounds: 9
max_per_host: 2
stop_after_empty_rounds: 7
allow: [a.example]
deny: [b.a.example]
focus: paper
outlinks: main
max_document_bytes: 1234
languages: [en, de]
default_language: de
reference_vector_size: 50
normalize: false
dictionary: /tmp/idf.tsv
reference_vectors: {de: {"2009": 1.25, wahl: 0.1}}
correction_factors: {de: 0.3}
link_priority: {parent: 0.4, anchor: 0.5, context: 0.1}
link_dates: true
combine: average
temporal_intent: {months: {2009-09: 10, 2009-10: 2.5}, min_priority: 0.3}
follow_threshold: auto
calibration_splits: 4
max_depth: 5
count_listing_pages: true
follow_canonical: false
follow_pagination: false
discount_template_links: true
discount_pre_event_links: false
pre_event_rule: tempr
discount_post_event_links: false
learn_links: true
feedback: {documents: 7, beta: 0.25, gamma: 0.1, parent: false}
look_ahead: 2
`

func TestWriteRoundTripEveryField(t *testing.T) {
	s, err := Parse([]byte(everyField), "every.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := reflect.ValueOf(Defaults())
	v := reflect.ValueOf(*s)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if name == "Path" || name == "Format" || name == "Warnings" || name == "DictionaryData" {
			continue
		}
		if reflect.DeepEqual(v.Field(i).Interface(), def.Field(i).Interface()) {
			t.Errorf("everyField leaves %s at its default; set it", name)
		}
	}
	fv, fdef := reflect.ValueOf(s.Focus), reflect.ValueOf(Defaults().Focus)
	for i := 0; i < fv.NumField(); i++ {
		if reflect.DeepEqual(fv.Field(i).Interface(), fdef.Field(i).Interface()) {
			t.Errorf("everyField leaves Focus.%s at its default; set it", fv.Type().Field(i).Name)
		}
	}
	roundTrip(t, s)
}
