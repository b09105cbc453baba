package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/hostile"
)

// TestLoadConfinesPaths: reference document files and the dictionary must
// lie inside the specification's folder or an allowed folder, symbolic
// links resolved.
func TestLoadConfinesPaths(t *testing.T) {
	base := t.TempDir()
	dir, outside, allowed := filepath.Join(base, "spec"), filepath.Join(base, "outside"), filepath.Join(base, "allowed")
	for _, d := range []string{dir, outside, allowed, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "sub", "ref.html"), "<p>inside</p>")
	write(filepath.Join(outside, "secret.txt"), "secret")
	write(filepath.Join(allowed, "idf.tsv"), "wahl\t3\n")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub", "ref.html"), filepath.Join(dir, "inner-link.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "outdir")); err != nil {
		t.Fatal(err)
	}
	load := func(t *testing.T, refs, dict string, allow ...string) error {
		t.Helper()
		spec := "name: p\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nreference_documents: [" + refs + "]\n"
		if dict != "" {
			spec += "dictionary: " + dict + "\n"
		}
		path := filepath.Join(dir, "p.yaml")
		write(path, spec)
		_, err := Load(path, allow...)
		return err
	}
	for _, c := range []struct{ refs, dict, want string }{
		{"{file: /etc/shadow}", "", `reference_documents[0].file: /etc/shadow is outside the specification's folder ` + dir + ` (allow another folder with --spec_root)`},
		{"{file: ../outside/secret.txt}", "", `reference_documents[0].file: ../outside/secret.txt is outside the specification's folder`},
		{"{file: sub/../../outside/secret.txt}", "", "is outside the specification's folder"},
		{"{file: link.txt}", "", `reference_documents[0].file: link.txt is a link to ` + filepath.Join(outside, "secret.txt") + `, outside the specification's folder`},
		{"{file: outdir/secret.txt}", "", `reference_documents[0].file: outdir/secret.txt is a link to`},
		{"{file: ../nothing-here}", "", "is outside"}, // refused before it is looked at
		{"{file: sub/ref.html}", "/etc/passwd", "dictionary: /etc/passwd is outside"},
		{"{file: sub/ref.html}", "../allowed/idf.tsv", "dictionary: ../allowed/idf.tsv is outside"},
	} {
		err := load(t, c.refs, c.dict)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("refs %s, dictionary %q: Load = %v, want %q", c.refs, c.dict, err, c.want)
		}
	}
	// Inside, through a link that stays inside, or in an allowed folder.
	if err := load(t, "{file: sub/ref.html}, {file: inner-link.html}", "../allowed/idf.tsv", allowed); err != nil {
		t.Errorf("allowed files refused: %v", err)
	}
	if err := load(t, "{file: "+filepath.Join(allowed, "idf.tsv")+"}", "", allowed); err != nil {
		t.Errorf("an absolute path in an allowed folder refused: %v", err)
	}
	err := load(t, "{file: ../outside/secret.txt}", "", allowed)
	if err == nil || !strings.Contains(err.Error(), "or the allowed folders "+allowed) {
		t.Errorf("with an allowed folder: %v", err)
	}
	// The specification reached through a linked folder: its files are
	// still inside.
	if err := load(t, "{file: sub/ref.html}", ""); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(base, "linked-spec")
	if err := os.Symlink(dir, linked); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(linked, "p.yaml")); err != nil {
		t.Errorf("through a linked folder: %v", err)
	}
}

// TestLoadChecksWhatItOpens: while ref.txt is swapped again and again
// between a file inside the folder and a symbolic link to a file outside,
// every Load either refuses it or gives the inside file's bytes; and when
// it is replaced by such a link after Load, the bytes used (Data, or the
// file read again by its name when Load gave none) are still those of the
// file Load checked.
func TestLoadChecksWhatItOpens(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "spec")
	os.MkdirAll(dir, 0o755)
	secret := filepath.Join(base, "secret.txt")
	os.WriteFile(secret, []byte("outside secret"), 0o644)
	os.WriteFile(filepath.Join(dir, "inside.txt"), []byte("inside text"), 0o644)
	path := filepath.Join(dir, "p.yaml")
	os.WriteFile(path, []byte("name: p\nevent: {start: 2009-09-27}\nlead_time: P0D\ncooldown_time: P0D\nreference_documents: [{file: ref.txt}]\n"), 0o644)
	ref := filepath.Join(dir, "ref.txt")
	os.WriteFile(ref, []byte("inside text"), 0o644)

	stop := hostile.SwapFile(ref, secret, []byte("inside text"))
	var accepted, leaked int
	for range 300 {
		s, err := Load(path)
		if err != nil {
			continue
		}
		accepted++
		data := s.ReferenceDocuments[0].Data
		if data == nil {
			data, _ = os.ReadFile(s.ReferenceDocuments[0].File)
		}
		if strings.Contains(string(data), "secret") {
			leaked++
		}
	}
	stop()
	if leaked > 0 {
		t.Errorf("%d of %d accepted loads used the file outside the folder", leaked, accepted)
	}
	if accepted == 0 {
		t.Error("no load accepted the file inside the folder")
	}

	// Swapped after Load checked it: what is used is still what was checked.
	os.WriteFile(ref+".new", []byte("inside text"), 0o644)
	os.Rename(ref+".new", ref)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(secret, ref+".link")
	os.Rename(ref+".link", ref)
	data := s.ReferenceDocuments[0].Data
	if data == nil {
		data, _ = os.ReadFile(s.ReferenceDocuments[0].File)
	}
	if string(data) != "inside text" {
		t.Errorf("ref.txt replaced by a link after Load: the bytes used are %q, want the checked file's", data)
	}
}
