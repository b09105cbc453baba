package cli

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
		{CheckFile("--spec", file), ""},
		{CheckFile("--spec", missing), "--spec=" + missing + ": no such file"},
		{CheckFile("--spec", dir), "a directory, not a file"},
		{CheckFile("--spec", "gs://b/x"), ""},
		{CheckDir("--archive", dir), ""},
		{CheckDir("--archive", file), "--archive=" + file + ": a file, not a directory"},
		{CheckDir("--archive", missing), "no such directory"},
		{CheckFileOrDir("--dictionary", dir+"/"), ""},
		{CheckFileOrDir("--dictionary", missing), "no such file or directory"},
		{CheckOutputDir("--output", filepath.Join(missing, "a", "b")), ""},
		{CheckOutputDir("--output", file), "--output=" + file + ": a file, not a directory"},
		{CheckOutputDir("--output", filepath.Join(file, "sub", "x")), file + " is a file"},
		{CheckAtLeast("--shards", -1, 1), "--shards=-1: must be 1 or more"},
		{CheckAtLeast("--shards", 1, 1), ""},
		{CheckOneOf("--engine", "x", "beam", "sequential"), `--engine="x": want beam or sequential`},
		{CheckNoArgs([]string{"stray"}), `unexpected argument "stray"`},
		{CheckNoArgs(nil), ""},
	} {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("unexpected error %v", c.err)
		case c.want != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.want)):
			t.Errorf("error %v; want one with %q", c.err, c.want)
		}
	}
}
