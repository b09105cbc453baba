package hostile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/testkit/hostile"
	"github.com/recrawl/recrawl/specs"
)

// --- spec limits: weights, special files, swapped files, keyword counts ---

// specLimits loads specifications that push the loader's limits, in
// process: reference weights whose squares overflow (in this package's
// format and the authors'), a FIFO as a reference file and as a
// dictionary, a reference file swapped for a symbolic link to an outside
// file while it is loaded and after, and a 10 MB specification of a million
// keywords. Each must be refused with its field named, or loaded with only
// the checked file's bytes, promptly and in bounded memory.
func specLimits(t *testing.T, tl *tally, s *setup) {
	root := filepath.Join(s.root, "spec-limits")
	outside := filepath.Join(root, "outside")
	dir := filepath.Join(root, "spec")
	for _, d := range []string{outside, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	head := "name: limits\nevent: {start: 2010-04-14, end: 2010-05-23}\nlead_time: P10D\ncooldown_time: P10D\nseeds: ['https://a.example/']\n"
	// load writes text to dir/name and loads it, giving up after 20 s (a
	// FIFO opened for reading waits for a writer).
	load := func(name, text string) (*specs.Spec, error, bool) {
		p := filepath.Join(dir, name)
		if text != "" {
			os.WriteFile(p, []byte(text), 0o644)
		}
		type result struct {
			s   *specs.Spec
			err error
		}
		done := make(chan result, 1)
		go func() { sp, err := specs.Load(p); done <- result{sp, err} }()
		select {
		case r := <-done:
			return r.s, r.err, true
		case <-time.After(20 * time.Second):
			return nil, nil, false
		}
	}

	// Weights whose squares overflow: refused, naming the field.
	for _, c := range []struct{ name, text, field string }{
		{"weight-1e160.yaml", head + "reference_documents: [{text: volcano ash}]\nreference_vectors: {en: {volcano: 1e160, ash: 1}}\n", "reference_vectors.en.volcano"},
		{"weight-1e308.yaml", head + "reference_documents: [{text: volcano ash}]\nreference_vectors: {en: {volcano: 1e308}}\n", "reference_vectors.en.volcano"},
		{"weight-original.json", `{"name": "limits", "seedUrls": ["https://a.example/"], "referenceTime": {"start": "2010-04-14", "end": "2010-05-23", "beforeFuzziness": "P10D", "afterFuzziness": "P10D"}, "referenceDocuments": ["https://a.example/"], "referenceVectors": {"en": {"elements": {"volcano": 1e308, "ash": 1e308}}}, "defaultLanguage": "en"}`, "referenceVectors.en.elements.volcano"},
	} {
		tl.tried("spec-overflowing-weight")
		_, err, ok := load(c.name, c.text)
		if !ok || err == nil || !strings.Contains(err.Error(), c.field+": ") {
			tl.problem(&tl.unexpected, "%s: Load = %v (answered: %v), want a problem naming %s", c.name, err, ok, c.field)
		}
	}

	// A FIFO as a reference file or a dictionary: refused, not waited on.
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ref.txt"), []byte("volcano ash cloud"), 0o644)
	for field, text := range map[string]string{
		"reference_documents[0].file": head + "reference_documents: [{file: pipe}]\n",
		"dictionary":                  head + "reference_documents: [{file: ref.txt}]\ndictionary: pipe\n",
	} {
		tl.tried("spec-fifo")
		_, err, ok := load("fifo.yaml", text)
		if !ok {
			tl.problem(&tl.unexpected, "a FIFO as %s: Load still waiting after 20 s", field)
			os.WriteFile(fifo, nil, 0o644) // let the waiting open go on
			continue
		}
		if err == nil || !strings.Contains(err.Error(), field+": "+fifo+" is a FIFO") {
			tl.problem(&tl.unexpected, "a FIFO as %s: Load = %v, want a problem naming the field and the FIFO", field, err)
		}
	}

	// ref.txt swapped again and again for a link to an outside file, and
	// once after Load: the bytes used are always the checked file's.
	secret := filepath.Join(outside, "secret.txt")
	os.WriteFile(secret, []byte("zzcanaryword outside"), 0o644)
	ref := filepath.Join(dir, "swap.txt")
	os.WriteFile(ref, []byte("volcano ash cloud"), 0o644)
	swapSpec := head + "reference_documents: [{file: swap.txt}]\n"
	used := func(sp *specs.Spec) string {
		if d := sp.ReferenceDocuments[0].Data; d != nil {
			return string(d)
		}
		d, _ := os.ReadFile(sp.ReferenceDocuments[0].File) // what the extraction reads without Data
		return string(d)
	}
	stop := hostile.SwapFile(ref, secret, []byte("volcano ash cloud"))
	for i := range 60 {
		tl.tried("spec-swapped-file")
		sp, err, ok := load("swap.yaml", swapSpec)
		if ok && err == nil && strings.Contains(used(sp), "zzcanaryword") {
			tl.problem(&tl.unexpected, "swapped reference file, load %d: the outside file's bytes were used", i)
		}
	}
	stop()
	tl.tried("spec-swapped-file")
	os.WriteFile(ref+".new", []byte("volcano ash cloud"), 0o644)
	os.Rename(ref+".new", ref)
	sp, err, ok := load("swap.yaml", swapSpec)
	if !ok || err != nil {
		tl.problem(&tl.unexpected, "a reference file inside the folder: Load = %v (answered: %v)", err, ok)
	} else {
		os.Symlink(secret, ref+".link")
		os.Rename(ref+".link", ref)
		if strings.Contains(used(sp), "zzcanaryword") {
			tl.problem(&tl.unexpected, "reference file replaced by a link after Load: the outside file's bytes were used")
		}
	}

	// A million keywords in 10 MB: refused naming the limit, in bounded
	// time and memory (it took 58 s and 3.4 GB).
	var kw strings.Builder
	kw.WriteString(head + "reference_documents: [{text: volcano ash}]\nkeywords: [")
	for i := range 1_000_000 {
		fmt.Fprintf(&kw, "k%d, ", i)
	}
	kw.WriteString("end]\n")
	tl.tried("spec-many-keywords")
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	_, err, ok = load("keywords.yaml", kw.String())
	runtime.ReadMemStats(&m1)
	took, alloc := time.Since(start), m1.TotalAlloc-m0.TotalAlloc
	if !ok || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than the %d a specification may have", specs.MaxKeywords)) {
		tl.problem(&tl.unexpected, "%d bytes of keywords: Load = %v (answered: %v), want a problem naming the limit", kw.Len(), err, ok)
	}
	if alloc > 1<<30 {
		tl.problem(&tl.unexpected, "%d bytes of keywords: loading allocated %d MiB in %v", kw.Len(), alloc>>20, took)
	}
}
