package specs

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

const validBase = `name: v
event: {start: 2009-09-27}
lead_time: P30D
cooldown_time: P30D
reference_documents: [{url: 'https://a.example/'}]
`

// TestStrictTypes: a number, date or boolean where text is expected is
// refused, in YAML and in JSON; so is a negative reference vector weight.
func TestStrictTypes(t *testing.T) {
	for in, want := range map[string]string{
		validBase + "name: 5\n":                                           "",
		"name: 5\nevent: {start: 2009-09-27}\n":                           `x.yaml:1: name: expected a string, not 5 (quote it: "5")`,
		`{"name": 5}`:                                                     `x.yaml:1: name: expected a string, not 5 (quote it: "5")`,
		"description: 2009-09-27\n":                                       `description: expected a string, not 2009-09-27`,
		"keywords: [Wahl, true]\n":                                        `keywords[1]: expected a string, not true`,
		"reference_vectors: {de: {wahl: -0.5, kanzler: 1}}\n":             `x.yaml:1: reference_vectors.de.wahl: -0.5 is negative`,
		"reference_vectors: {de: {wahl: 0}}\n":                            "!reference_vectors",
		"event: {start: 0001-01-01}\n":                                    `event.start: "0001-01-01" is out of range: a bound is in the years 1000 to 9999`,
		"event: {start: 2009-09-27, end: '0001-01-01T00:00:00Z'}\n":       `event.end: "0001-01-01T00:00:00Z" is out of range`,
		"reference_vectors: {de: {wahl: 1e160, kanzler: 1}}\n":            `x.yaml:1: reference_vectors.de.wahl: 1e+160 is beyond 1e+09`,
		"correction_factors: {de: -1}\n":                                  `correction_factors.de: -1 is not positive`,
		"link_priority: {parent: -1, anchor: 1}\n":                        `link_priority.parent: -1 is negative`,
		"seeds: [~]\n":                                                    `seeds[0]: is empty`,
		"target_size: 99999999999999999999\n":                             `target_size: 99999999999999999999 is too large`,
		"max_document_bytes: 0\n":                                         `max_document_bytes: "0" must be positive`,
		"keywords: {de: [' ']}\n":                                         `keywords.de[0]: is empty`,
		"temporal_intent: {months: {2009-09: 1}, foo: 2}\n":               `unknown field "foo" in temporal_intent`,
		"follow_threshold: 1.5\n":                                         `follow_threshold: "1.5" is neither "auto" nor a number in [0, 1]`,
		"default_language: ''\n":                                          `default_language: is empty`,
		"reference_documents: [{url: 'https://a.example/', text: ' '}]\n": `reference_documents[0].text: is empty`,
	} {
		if want == "" {
			continue // a duplicate name, checked below
		}
		_, err := Parse([]byte(in), "x.yaml")
		if strings.HasPrefix(want, "!") {
			if err != nil && strings.Contains(err.Error(), want[1:]) {
				t.Errorf("Parse(%q) = %v, want no problem with %s", in, err, want[1:])
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
	_, err := Parse([]byte(validBase+"name: 5\n"), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), "name: given twice") {
		t.Errorf("second name: %v", err)
	}
	// Quoted, the same text is fine.
	if _, err := Parse([]byte(strings.Replace(validBase, "name: v", `name: "5"`, 1)+"keywords: ['2009']\n"), "x.yaml"); err != nil {
		t.Errorf("quoted name and keyword: %v", err)
	}
}

// TestValidateAfterChanges: a loaded spec changed by a program (a flag
// override, an evaluation variant) is checked again before use.
func TestValidateAfterChanges(t *testing.T) {
	s, err := Parse([]byte(validBase+"link_priority: {parent: 0.4, anchor: 0.6}\n"), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if probs := s.Validate(); probs != nil {
		t.Fatalf("a parsed spec has problems: %v", probs)
	}
	s.Strategy = StrategyUnfocused // what `eval --options oracle` does
	s.Alpha = 2
	s.BatchSize = 0
	err = s.Check()
	var se *Error
	if !errors.As(err, &se) || len(se.Problems) != 3 {
		t.Fatalf("Check = %v, want 3 problems", err)
	}
	var fields []string
	for _, p := range se.Problems {
		fields = append(fields, p.Field)
		if strings.Contains(p.Msg, "\n") {
			t.Errorf("problem %q is not one line", p.Msg)
		}
	}
	if !reflect.DeepEqual(fields, []string{"batch_size", "alpha", "link_priority"}) {
		t.Errorf("fields %v", fields)
	}
	if !strings.Contains(err.Error(), "<input>: link_priority: the unfocused strategy uses no priorities") {
		t.Errorf("Check = %v", err)
	}
	if d := Defaults(); d.Validate() == nil {
		t.Error("Defaults() has no name, event or reference documents, yet validates")
	}
}

// TestAliasesBounded: aliases cannot blow a small document up into a huge
// tree.
func TestAliasesBounded(t *testing.T) {
	// 1000 languages share one vector of 1000 terms: 2000 nodes written,
	// a million to decode.
	var b strings.Builder
	b.WriteString("description: &big {")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "t%d: 1, ", i)
	}
	b.WriteString("}\nreference_vectors: {")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "l%d: *big, ", i)
	}
	b.WriteString("}\n")
	_, err := Parse([]byte(b.String()), "bomb.yaml")
	if err == nil || !strings.Contains(err.Error(), "too many nodes") {
		t.Errorf("Parse of an alias bomb = %.300v", err)
	}
}

// TestReferenceListsEveryField: docs/specification.md's tables name every
// field of the format, and no other.
func TestReferenceListsEveryField(t *testing.T) {
	data, err := os.ReadFile("../docs/specification.md")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(data), "\n## Original format")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)(\\.[a-z_]+)?` \\|").FindAllStringSubmatch(head, -1) {
		documented[m[1]] = true
	}
	for _, f := range fieldsOf(reflect.TypeOf(Spec{})) {
		if !documented[f.name] {
			t.Errorf("docs/specification.md does not document %s", f.name)
		}
		delete(documented, f.name)
	}
	for name := range documented {
		t.Errorf("docs/specification.md documents %s, which is not a field", name)
	}
}

// TestBatchSizeBound: batch_size is at most MaxBatchSize, the largest rank
// a discovery order can encode.
func TestBatchSizeBound(t *testing.T) {
	if d := Defaults(); MaxBatchSize < d.BatchSize {
		t.Fatal("MaxBatchSize below the default")
	}
	for _, f := range fieldsOf(reflect.TypeOf(Spec{})) {
		if f.name == "batch_size" && (!f.hasMax || f.max != MaxBatchSize) {
			t.Errorf("batch_size's max tag is %d, MaxBatchSize %d", f.max, MaxBatchSize)
		}
	}
	_, err := Parse([]byte(validBase+fmt.Sprintf("batch_size: %d\n", MaxBatchSize+1)), "b.yaml")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("b.yaml:6: batch_size: %d is more than %d", MaxBatchSize+1, MaxBatchSize)) {
		t.Errorf("Parse = %v", err)
	}
	if _, err := Parse([]byte(validBase+fmt.Sprintf("batch_size: %d\n", MaxBatchSize)), "b.yaml"); err != nil {
		t.Error(err)
	}
}
