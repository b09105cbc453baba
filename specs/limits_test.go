package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keywordSpec is a specification with n keywords, in this package's
// format (a list, or a mapping from language) or the authors'.
func keywordSpec(n int, form string) string {
	var kw strings.Builder
	for i := range n {
		if i > 0 {
			kw.WriteString(", ")
		}
		fmt.Fprintf(&kw, "%q", fmt.Sprintf("w%d", i))
	}
	switch form {
	case "original":
		return `{"name": "k", "seedUrls": ["https://a.example/"], "referenceTime": {"start": "2009-09-27", "end": "2009-09-28", "beforeFuzziness": "P0D", "afterFuzziness": "P0D"}, "referenceDocuments": ["https://a.example/"], "referenceVectors": {"de": {"elements": {"wahl": 1}}}, "keywords": {"de": [` + kw.String() + `]}}`
	case "mapping":
		return "name: k\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nseeds: ['https://a.example/']\nreference_documents: [{text: wahl}]\nkeywords: {de: [" + kw.String() + "]}\n"
	}
	return "name: k\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nseeds: ['https://a.example/']\nreference_documents: [{text: wahl}]\nkeywords: [" + kw.String() + "]\n"
}

// TestKeywordLimit: more than MaxKeywords keywords is one problem naming
// the limit, in every form; MaxKeywords are accepted.
func TestKeywordLimit(t *testing.T) {
	for _, form := range []string{"list", "mapping", "original"} {
		if _, err := Parse([]byte(keywordSpec(MaxKeywords, form)), "k.yaml"); err != nil {
			t.Errorf("%s of %d keywords: %v", form, MaxKeywords, err)
		}
		_, err := Parse([]byte(keywordSpec(MaxKeywords+1, form)), "k.yaml")
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("keywords: %d keywords, more than the %d a specification may have", MaxKeywords+1, MaxKeywords)) {
			t.Errorf("%s of %d keywords: %v", form, MaxKeywords+1, err)
		}
	}
}

// BenchmarkManyProblems: a specification with a problem in each of
// MaxKeywords-1 keywords, found both while decoding (null keywords) and
// while validating (blank ones). Matching the validation problems against
// the decoding ones was a pass over all of them per problem (quadratic);
// it is a look-up per problem.
func BenchmarkManyProblems(b *testing.B) {
	var kw strings.Builder
	for i := range MaxKeywords - 1 {
		if i%2 == 0 {
			kw.WriteString("~, ")
		} else {
			kw.WriteString("' ', ")
		}
	}
	spec := []byte("name: k\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nseeds: ['https://a.example/']\nreference_documents: [{text: wahl}]\nkeywords: [" + kw.String() + "x]\n")
	for b.Loop() {
		if _, err := Parse(spec, "k.yaml"); err == nil {
			b.Fatal("no problems")
		}
	}
}

// TestFIFOIsRefused: a FIFO named as a reference file or a dictionary is a
// problem naming the field and the path, found without waiting for a
// writer.
func TestFIFOIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "ref.txt"), []byte("Wahl"), 0o644)
	for field, spec := range map[string]string{
		"reference_documents[0].file": "reference_documents: [{file: pipe}]\n",
		"dictionary":                  "reference_documents: [{file: ref.txt}]\ndictionary: pipe\n",
	} {
		path := filepath.Join(dir, "s.yaml")
		os.WriteFile(path, []byte("name: p\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\n"+spec), 0o644)
		done := make(chan error, 1)
		go func() { _, err := Load(path); done <- err }()
		select {
		case err := <-done:
			if want := field + ": " + fifo + " is a FIFO (named pipe), not a regular file"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: Load = %v, want %q", field, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Load of a FIFO still waiting after 10 s", field)
		}
	}
}
