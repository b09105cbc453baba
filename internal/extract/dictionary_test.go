package extract

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/specs"
)

// TestSpecDictionarySwappedAfterLoad: the specification's dictionary file
// is replaced by a link to a file outside its folder after Load checked
// it. The scorer a worker builds (from the job sent as JSON) uses the
// checked file's idf values, not the outside file's.
func TestSpecDictionarySwappedAfterLoad(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "spec")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside.tsv")
	os.WriteFile(outside, []byte("volcano\t9.5\nash\t9.5\n"), 0o644)
	dict := filepath.Join(dir, "idf.tsv")
	os.WriteFile(dict, []byte("volcano\t2.5\nash\t1.5\n"), 0o644)
	path := filepath.Join(dir, "s.yaml")
	os.WriteFile(path, []byte("name: s\nevent: {start: 2010-04-14, end: 2010-05-23}\nlead_time: P10D\ncooldown_time: P10D\nseeds: ['https://a.example/']\nreference_documents: [{text: volcano ash cloud}]\ndictionary: idf.tsv\n"), 0o644)
	s, err := specs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	job := &Job{Spec: s}
	job.UseSpecDictionary()

	if err := os.Symlink(outside, dict+".link"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dict+".link", dict); err != nil {
		t.Fatal(err)
	}

	enc, err := job.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	worker, err := UnmarshalJob(enc)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := worker.ScorerConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Dictionaries[s.DefaultLanguage]
	if d == nil {
		t.Fatalf("no dictionary for %q: %v", s.DefaultLanguage, cfg.Dictionaries)
	}
	if got := d.IDF("volcano"); got != 2.5 {
		t.Errorf("idf.tsv replaced by a link after Load: idf(volcano) = %v, want the checked file's 2.5", got)
	}
}
