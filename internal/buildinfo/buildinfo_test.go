package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/recrawl/recrawl", Version: "v0.3.0"},
		Deps: []*debug.Module{
			{Path: BeamModule, Version: "v2.77.0"},
			{Path: "github.com/nlnwa/gowarc", Version: "v1.6.0", Replace: &debug.Module{Path: "github.com/nlnwa/gowarc", Version: "v1.6.1"}},
			{Path: "golang.org/x/net", Version: "v0.62.0"},
		},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "4ac0463d"},
			{Key: "vcs.time", Value: "2026-11-27T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	info := fromBuildInfo(bi)
	if info.RevisionString() != "4ac0463d-dirty" {
		t.Errorf("revision %q, want 4ac0463d-dirty", info.RevisionString())
	}
	var b strings.Builder
	if err := info.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "recrawl v0.3.0\nmodule: github.com/recrawl/recrawl\nrevision: 4ac0463d-dirty\ncommitted: 2026-11-27T10:00:00Z\ngo: go1.26.8\nbeam: v2.77.0\n"
	if b.String() != want {
		t.Errorf("Write:\n%s\nwant:\n%s", b.String(), want)
	}
	v := info.Versions()
	for k, w := range map[string]string{"recrawl": "v0.3.0", "revision": "4ac0463d-dirty", "committed": "2026-11-27T10:00:00Z",
		"go": "go1.26.8", "beam": "v2.77.0", "github.com/nlnwa/gowarc": "v1.6.1"} {
		if v[k] != w {
			t.Errorf("Versions()[%q] = %q, want %q (%v)", k, v[k], w, v)
		}
	}
	if _, ok := v["golang.org/x/net"]; ok {
		t.Errorf("Versions records a module not in DepsRecorded: %v", v)
	}

	// A clean checkout; a build without VCS information (go run, -buildvcs=false).
	bi.Settings[3].Value = "false"
	if r := fromBuildInfo(bi).RevisionString(); r != "4ac0463d" {
		t.Errorf("clean checkout: revision %q", r)
	}
	bi.Settings = nil
	info = fromBuildInfo(bi)
	if r := info.RevisionString(); r != "unknown" {
		t.Errorf("no VCS information: revision %q, want unknown", r)
	}
	if _, ok := info.Versions()["revision"]; ok {
		t.Errorf("no VCS information, yet Versions has a revision: %v", info.Versions())
	}
}

// TestRead reads the test binary's own build: the running Go and this
// module (cmd/recrawl's tests check the Beam version of the real binary).
func TestRead(t *testing.T) {
	info := Read()
	if info.Go != runtime.Version() || info.Module != "github.com/recrawl/recrawl" {
		t.Errorf("Read() = %+v: want the running Go and the module github.com/recrawl/recrawl", info)
	}
}
