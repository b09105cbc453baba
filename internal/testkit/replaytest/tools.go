package replaytest

import (
	"bufio"
	"fmt"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/replay"
)

// Versions reads scripts/replay-deps.env, where the viewer versions are
// pinned.
func Versions() (map[string]string, error) {
	path := filepath.Join(sharedtest.Repo(), "scripts", "replay-deps.env")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, val, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			v[k] = val
		}
	}
	return v, sc.Err()
}

// CacheDir is where scripts/install-replay-deps.sh installs the viewers
// (replay.CacheDir).
func CacheDir() string { return replay.CacheDir() }

// missing fails the test under CI and skips it elsewhere.
func missing(t testing.TB, what string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s is missing: %v; run scripts/install-test-deps.sh", what, err)
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set, so this fails instead of skipping)")
	}
	t.Skip(msg)
}

// ReplayWebPageDir returns the folder with ReplayWeb.page's ui.js and sw.js.
func ReplayWebPageDir(t testing.TB) string {
	t.Helper()
	v, err := Versions()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(CacheDir(), "replaywebpage-"+v["REPLAYWEBPAGE_VERSION"], "package")
	if _, err := os.Stat(filepath.Join(dir, "sw.js")); err != nil {
		missing(t, "ReplayWeb.page "+v["REPLAYWEBPAGE_VERSION"], err)
	}
	return dir
}

// PywbBin returns the path of a pywb command (wayback, wb-manager,
// cdx-indexer) in the pinned virtualenv.
func PywbBin(t testing.TB, name string) string {
	t.Helper()
	v, err := Versions()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(CacheDir(), "pywb-"+v["PYWB_VERSION"], "bin", name)
	if _, err := os.Stat(p); err != nil {
		missing(t, "pywb "+v["PYWB_VERSION"], err)
	}
	return p
}

// Chromium returns the Chromium binary ($CHROMIUM, or chromium on PATH).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, c := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if c != "" {
			if _, err := os.Stat(c); err == nil {
				return c
			}
		}
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		missing(t, "chromium", err)
	}
	return p
}

// waczValidator is the path of py-wacz's wacz command, at the version
// pinned in scripts/replay-deps.env, in pywb's virtualenv.
func waczValidator() (string, error) {
	v, err := Versions()
	if err != nil {
		return "", err
	}
	venv := filepath.Join(CacheDir(), "pywb-"+v["PYWB_VERSION"])
	if _, err := os.Stat(filepath.Join(venv, ".installed-wacz-"+v["WACZ_VERSION"])); err != nil {
		return "", fmt.Errorf("py-wacz %s: %w", v["WACZ_VERSION"], err)
	}
	return filepath.Join(venv, "bin", "wacz"), nil
}

// WACZValidator returns py-wacz's wacz command (failing the test under CI
// and skipping it elsewhere when it is not installed).
func WACZValidator(t testing.TB) string {
	t.Helper()
	bin, err := waczValidator()
	if err != nil {
		missing(t, "py-wacz", err)
	}
	return bin
}

// ValidateWACZ runs `wacz validate -f path` (py-wacz, webrecorder's own
// checker: the zip's layout, datapackage.json against the Data Package
// schema, every resource's hash and size, datapackage-digest.json) and
// fails the test with its output when it rejects the file. Without py-wacz
// it fails under CI, and elsewhere logs that the file was not validated
// and lets the test go on with its other checks.
func ValidateWACZ(t testing.TB, path string) {
	t.Helper()
	bin, err := waczValidator()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s cannot be validated: %v; run scripts/install-test-deps.sh (CI is set, so this fails)", path, err)
		}
		t.Logf("%s not validated: %v; run scripts/install-test-deps.sh", path, err)
		return
	}
	out, err := exec.Command(bin, "validate", "-f", path).CombinedOutput()
	if err != nil {
		t.Errorf("wacz validate -f %s: %v\n%s", path, err, out)
	}
}
