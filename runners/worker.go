package runners

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// BuildWorkerBinary cross-compiles the running program for the workers of a
// cluster (GOOS=linux GOARCH=amd64 CGO_ENABLED=0, -trimpath) into dir and
// returns the path of the binary. The program is found from its own build
// information: its main package is rebuilt from the sources of its module,
// which must be the module of the current directory (a checkout), with the
// build tags it was built with. A test binary is rebuilt with `go test -c`,
// so the workers know the test's DoFns.
//
// Typical cost: ~10 s with a warm build cache, minutes cold. Deployed
// programs, which have no sources next to them, get an error saying to pass
// a pre-built --worker_binary.
func BuildWorkerBinary(ctx context.Context, dir string) (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", errors.New("this program has no build information; build the worker with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build and pass --worker_binary")
	}
	pkg, isTest := strings.CutSuffix(info.Path, ".test")
	if pkg == "" || pkg == "command-line-arguments" || info.Main.Path == "" {
		return "", fmt.Errorf("cannot rebuild %q (built from files, not a package); build the worker with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build and pass --worker_binary", info.Path)
	}
	// The current directory must hold the sources of the module the program
	// was built from; otherwise go build would compile some other version.
	list := exec.CommandContext(ctx, "go", "list", "-f", "{{.Module.Path}}", pkg)
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("find the sources of %s (run from a checkout of %s, or pass --worker_binary): go list: %v: %s", pkg, info.Main.Path, err, strings.TrimSpace(stderr.String()))
	}
	if mod := strings.TrimSpace(string(out)); mod != info.Main.Path {
		return "", fmt.Errorf("the current directory builds %s from module %q, but this program was built from module %q; run from a checkout of it or pass --worker_binary", pkg, mod, info.Main.Path)
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("worker binary directory: %w", err)
	}
	bin := filepath.Join(dir, path.Base(pkg)+"-worker-linux-amd64")
	args := []string{"build"}
	if isTest {
		args = []string{"test", "-c"}
	}
	args = append(args, "-trimpath", "-o", bin)
	for _, s := range info.Settings {
		if s.Key == "-tags" && s.Value != "" {
			args = append(args, "-tags", s.Value)
		}
	}
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	start := time.Now()
	slog.Info("building the worker binary", "package", pkg, "test", isTest, "out", bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	slog.Info("built the worker binary", "out", bin, "seconds", time.Since(start).Round(time.Millisecond).Seconds())
	return bin, nil
}
