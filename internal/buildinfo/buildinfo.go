// Package buildinfo says which build of recrawl is running: the module
// version, the VCS revision it was built from (and whether the checkout had
// changes), and the Go and Beam SDK versions, all read from the build
// information the Go toolchain embeds (runtime/debug.ReadBuildInfo).
// `recrawl version` prints it and every extraction records it in run.json.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
)

// BeamModule is the module path of the Apache Beam Go SDK.
const BeamModule = "github.com/apache/beam/sdks/v2"

// Info is what a binary knows of its own build. A field is "" where the
// build did not record it: no VCS revision for `go run` or `go test`, or a
// build with -buildvcs=false; no module version outside a module.
type Info struct {
	Module   string // the main module's path, github.com/recrawl/recrawl
	Version  string // its version: a tag, a pseudo-version, or (devel) for a checkout
	Revision string // vcs.revision: the commit
	Time     string // vcs.time: the commit's time, RFC 3339
	Modified bool   // vcs.modified: the checkout had uncommitted changes
	Go       string // the Go toolchain, e.g. go1.26.8
	Beam     string // the Beam Go SDK's module version, e.g. v2.77.0
	// Deps are the versions of other modules worth recording with a run
	// (module path → version), among those of DepsRecorded that are linked.
	Deps map[string]string
}

// DepsRecorded are the modules besides Beam whose versions Read records in
// Deps: the WARC reader and the Bigtable client.
var DepsRecorded = []string{"github.com/nlnwa/gowarc", "cloud.google.com/go/bigtable"}

// Read returns the running binary's build information.
func Read() Info {
	info := Info{Go: runtime.Version(), Deps: map[string]string{}}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion, Deps: map[string]string{}}
	if info.Go == "" {
		info.Go = runtime.Version()
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified, _ = strconv.ParseBool(s.Value)
		}
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		if d.Path == BeamModule {
			info.Beam = d.Version
		}
		for _, r := range DepsRecorded {
			if d.Path == r {
				info.Deps[d.Path] = d.Version
			}
		}
	}
	return info
}

// RevisionString is the revision with "-dirty" appended when the checkout
// had uncommitted changes, or "unknown" when the build recorded none.
func (i Info) RevisionString() string {
	switch {
	case i.Revision == "":
		return "unknown"
	case i.Modified:
		return i.Revision + "-dirty"
	default:
		return i.Revision
	}
}

// orUnknown is s, or "unknown" when s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Write prints the information, one "name: value" line each: what
// `recrawl version` prints.
func (i Info) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "recrawl %s\nmodule: %s\nrevision: %s\ncommitted: %s\ngo: %s\nbeam: %s\n",
		orUnknown(i.Version), orUnknown(i.Module), i.RevisionString(), orUnknown(i.Time), i.Go, orUnknown(i.Beam))
	return err
}

// Versions is the information as run.json's "versions" object: recrawl
// (the module version), revision (with -dirty), committed, go, beam (the
// Beam Go SDK), and the versions of DepsRecorded by module path. Fields the build did not record are left
// out.
func (i Info) Versions() map[string]string {
	v := map[string]string{"go": i.Go}
	set := func(k, val string) {
		if val != "" {
			v[k] = val
		}
	}
	set("recrawl", i.Version)
	if i.Revision != "" {
		v["revision"] = i.RevisionString()
	}
	set("committed", i.Time)
	set("beam", i.Beam)
	for p, ver := range i.Deps {
		set(p, ver)
	}
	return v
}
