package specs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds YAML and JSON (ours and the original authors' format) to
// Parse: it must return a spec or an error, never panic or hang. Seeds: the
// examples and specs/testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("examples", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"name": "x", "event": {"start": "2010-01-01"}, "keywords": {"en": ["a"]}, "lead_time": "P1D", "cooldown_time": "P1D"}`))
	f.Add([]byte(`{"seedUrls": ["http://a/"], "referenceTime": {"from": 1262304000000, "beforeFuzziness": 1, "afterFuzziness": 2}, "referenceVectors": {"de": {"x": 1}}, "defaultLanguage": "de"}`))
	f.Add([]byte("name: 5\nreference_vectors: {en: {x: -1}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"f.yaml", "f.json"} {
			s, err := Parse(data, name)
			if err == nil && s == nil {
				t.Fatalf("%s: nil spec without an error", name)
			}
		}
	})
}
