// Package testservers starts the real local servers the integration tests
// run against — the Bigtable emulator, a GCS emulator (fake-gcs-server) and a
// standalone prism job server — always through the project's own scripts in
// scripts/, the way a user starts them. Each server runs in its own process
// group and is stopped when the test ends.
//
// A server that cannot start makes the test skip on a developer's machine
// and fail when the CI environment variable is set: CI must never pass
// without having exercised the real thing.
package testservers

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTimeout includes a cold build of the server by its script.
const startTimeout = 5 * time.Minute

// Log collects a server's standard error for failure messages.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was logged so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ScriptPath returns the absolute path of a script in scripts/.
func ScriptPath(name string) string {
	_, file, _, _ := runtime.Caller(0) // REPO/internal/testservers/testservers.go
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(file))), "scripts", name)
}

// CannotStart skips the test, or fails it when CI is set.
func CannotStart(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// Script runs scripts/NAME with args in its own process group, sends its
// standard output to stdout, and stops the whole group when the test ends.
// exited receives the script's exit.
func Script(t testing.TB, stdout io.Writer, name string, args ...string) (exited <-chan error, log *Log) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{ScriptPath(name)}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log = &Log{}
	cmd.Stdout, cmd.Stderr = stdout, log
	if err := cmd.Start(); err != nil {
		CannotStart(t, "start %s: %v", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("%s did not stop on SIGTERM\n%s", name, log.String())
		}
	})
	return done, log
}

// announced runs a script that prints VAR=VALUE once its server is ready
// and returns VALUE.
func announced(t testing.TB, name, variable string, args ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	exited, log := Script(t, pw, name, args...)
	values := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), variable+"="); ok {
				values <- v
			}
		}
	}()
	t.Cleanup(func() { pw.Close() })
	select {
	case v := <-values:
		return v
	case err := <-exited:
		CannotStart(t, "%s exited before it printed %s: %v\n%s", name, variable, err, log.String())
	case <-time.After(startTimeout):
		CannotStart(t, "%s printed no %s within %v\n%s", name, variable, startTimeout, log.String())
	}
	return ""
}

// Bigtable starts the Bigtable emulator (scripts/bigtable-emulator.sh) and
// returns its address, the value for BIGTABLE_EMULATOR_HOST.
func Bigtable(t testing.TB) string {
	t.Helper()
	return announced(t, "bigtable-emulator.sh", "BIGTABLE_EMULATOR_HOST", "--port", "0")
}

// GCS starts fake-gcs-server (scripts/gcs-emulator.sh) and returns its
// address, the value for STORAGE_EMULATOR_HOST.
func GCS(t testing.TB) string {
	t.Helper()
	return announced(t, "gcs-emulator.sh", "STORAGE_EMULATOR_HOST", "--port", "0")
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Prism starts a standalone prism job server (scripts/prism-jobserver.sh)
// on free ports and returns its job endpoint once it accepts connections.
func Prism(t testing.TB) (endpoint string, log *Log) {
	t.Helper()
	jobPort, webPort := FreePort(t), FreePort(t)
	exited, log := Script(t, io.Discard, "prism-jobserver.sh",
		fmt.Sprintf("--job_port=%d", jobPort), fmt.Sprintf("--web_port=%d", webPort))
	endpoint = fmt.Sprintf("localhost:%d", jobPort)
	deadline := time.Now().Add(startTimeout)
	for {
		c, err := net.DialTimeout("tcp", endpoint, time.Second)
		if err == nil {
			c.Close()
			return endpoint, log
		}
		select {
		case err := <-exited:
			CannotStart(t, "prism-jobserver.sh exited before it accepted connections: %v\n%s", err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			CannotStart(t, "prism job server accepts no connections on %s after %v\n%s", endpoint, startTimeout, log.String())
		}
	}
}
