package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunJSONVersions: run.json records the build that made it, as
// `recrawl version` prints it: the module version, the VCS revision (when
// the build has one), Go's and Beam's versions.
func TestRunJSONVersions(t *testing.T) {
	a := fixture(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, nil, extractArgs(a, testEvent, out, "--engine=sequential", "--max_rounds=1", "--batch_size=5")...)
	data, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Versions map[string]string `json:"versions"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	r := runRecrawl(t, "version")
	if r.err != nil {
		t.Fatalf("recrawl version: %v", r)
	}
	printed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if v, ok := strings.CutPrefix(line, "recrawl "); ok {
			printed["recrawl"] = v
		} else if k, v, ok := strings.Cut(line, ": "); ok {
			printed[k] = v
		}
	}
	want := map[string]string{"recrawl": printed["recrawl"], "go": printed["go"], "beam": printed["beam"]}
	if rev := printed["revision"]; rev != "unknown" {
		want["revision"] = rev
		want["committed"] = printed["committed"]
	}
	for k, w := range want {
		if w == "" || run.Versions[k] != w {
			t.Errorf("run.json versions[%q] = %q; recrawl version prints %q\nrun.json versions: %v\nrecrawl version:\n%s", k, run.Versions[k], w, run.Versions, r.stdout)
		}
	}
	if _, ok := run.Versions["revision"]; ok && printed["revision"] == "unknown" {
		t.Errorf("run.json has a revision %q; recrawl version prints none", run.Versions["revision"])
	}
}
