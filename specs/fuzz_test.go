package specs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse as YAML and as JSON. It must not
// panic or hang; what it accepts must validate, and the canonical form must
// be a fixed point: writing, parsing and writing again (in YAML and in JSON)
// gives the same bytes. The seeds are the examples, the tests' inputs and
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("examples/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, in := range []string{badYAML, goodYAML, everyField, focusBase, validBase} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"f.yaml", "f.json"} {
			s, err := Parse(data, name)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("%s: error %T is not an *Error: %v", name, err, err)
				}
				continue
			}
			if probs := s.Validate(); probs != nil {
				t.Fatalf("%s: accepted, but Validate finds %v", name, probs)
			}
			checkFixedPoint(t, s)
		}
	})
}

// checkFixedPoint checks that s's canonical YAML and JSON read back into
// a specification with the same canonical YAML and JSON.
func checkFixedPoint(t *testing.T, s *Spec) {
	t.Helper()
	var y1 bytes.Buffer
	if err := s.Write(&y1); err != nil {
		t.Fatal(err)
	}
	j1, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	fromYAML, err := Parse(y1.Bytes(), "written.yaml")
	if err != nil {
		t.Fatalf("the written YAML does not parse: %v\n%s", err, y1.String())
	}
	var fromJSON Spec
	if err := json.Unmarshal(j1, &fromJSON); err != nil {
		t.Fatalf("the written JSON does not parse: %v\n%s", err, j1)
	}
	for _, back := range []*Spec{fromYAML, &fromJSON} {
		var y2 bytes.Buffer
		if err := back.Write(&y2); err != nil {
			t.Fatal(err)
		}
		j2, err := json.Marshal(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(y1.Bytes(), y2.Bytes()) || !bytes.Equal(j1, j2) {
			t.Fatalf("not a fixed point:\n%s\n%s\nread back:\n%s\n%s", y1.Bytes(), j1, y2.Bytes(), j2)
		}
	}
}
