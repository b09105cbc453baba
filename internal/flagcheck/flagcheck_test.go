package flagcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		err  error
		want string // "" for no error
	}{
		{File("--spec", file), ""},
		{File("--spec", missing), "--spec=" + missing + ": no such file"},
		{File("--spec", dir), "a directory, not a file"},
		{File("--spec", "gs://b/x"), ""},
		{Dir("--archive", dir), ""},
		{Dir("--archive", file), "--archive=" + file + ": a file, not a directory"},
		{Dir("--archive", missing), "no such directory"},
		{FileOrDir("--dictionary", dir+"/"), ""},
		{FileOrDir("--dictionary", missing), "no such file or directory"},
		{OutputDir("--output", filepath.Join(missing, "a", "b")), ""},
		{OutputDir("--output", file), "--output=" + file + ": a file, not a directory"},
		{OutputDir("--output", filepath.Join(file, "sub", "x")), file + " is a file"},
		{AtLeast("--shards", -1, 1), "--shards=-1: must be 1 or more"},
		{AtLeast("--shards", 1, 1), ""},
		{OneOf("--engine", "x", "beam", "sequential"), `--engine="x": want beam or sequential`},
		{NoArgs([]string{"stray"}), `unexpected argument "stray"`},
		{NoArgs(nil), ""},
	} {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("unexpected error %v", c.err)
		case c.want != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.want)):
			t.Errorf("error %v; want one with %q", c.err, c.want)
		}
	}
}
