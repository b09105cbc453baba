// Package testservers starts the real local servers the integration tests
// run against, on loopback addresses, and stops them when the test ends:
//
//   - the Bigtable emulator and a GCS emulator in the test's own process:
//     the libraries the emulator commands are built from (bttest,
//     fake-gcs-server's fakestorage), at the versions pinned in go.mod;
//     pipelines the test runs as other processes reach them by address;
//   - a standalone prism job server, `go tool prism` (a tool in go.mod), in
//     its own process group;
//   - the Flink and Spark clusters through the project's scripts
//     (clusters.go), the way a user starts them.
//
// A server that cannot start makes the test skip on a developer's machine
// and fail when the CI environment variable is set: CI must never pass
// without having exercised the real thing.
package testservers

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigtable/bttest"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/recrawl/recrawl/internal/testkit/proctest"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// startTimeout includes a cold build of the server (go tool, a script).
const startTimeout = 5 * time.Minute

// Log collects a server's standard error for failure messages.
type Log = proctest.Log

// ScriptPath returns the absolute path of a script in scripts/.
func ScriptPath(name string) string {
	return filepath.Join(sharedtest.Repo(), "scripts", name)
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
	return Command(t, stdout, "bash", append([]string{ScriptPath(name)}, args...)...)
}

// Command runs a program in the module's root directory, in its own process
// group, as Script does.
func Command(t testing.TB, stdout io.Writer, program string, args ...string) (exited <-chan error, log *Log) {
	t.Helper()
	exited, log, _ = command(t, stdout, program, args...)
	return exited, log
}

// command is Command that also returns a function that kills the whole
// process group at once (SIGKILL), as a crash would.
func command(t testing.TB, stdout io.Writer, program string, args ...string) (exited <-chan error, log *Log, kill func()) {
	t.Helper()
	name := program // for messages: "bash flink-cluster.sh", "go tool"
	if len(args) > 0 {
		name += " " + filepath.Base(args[0])
	}
	cmd := exec.Command(program, args...)
	cmd.Dir = filepath.Dir(ScriptPath(""))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log = &Log{}
	cmd.Stdout, cmd.Stderr = stdout, log
	if err := cmd.Start(); err != nil {
		CannotStart(t, "start %s: %v", name, err)
	}
	done := make(chan error, 1)
	ended := make(chan struct{}) // closed on exit, whoever reads done
	go func() { done <- cmd.Wait(); close(ended) }()
	kill = func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-ended:
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("%s did not stop on SIGTERM\n%s", name, log.String())
		}
	})
	return done, log, kill
}

// Bigtable starts a Bigtable emulator (bttest, the server of the emulator
// command) in this process and returns its address, the value for
// BIGTABLE_EMULATOR_HOST.
func Bigtable(t testing.TB) string {
	t.Helper()
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		CannotStart(t, "bigtable emulator: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv.Addr
}

// GCS starts a GCS emulator (fake-gcs-server's fakestorage, in memory) in
// this process and returns its address, the value for
// STORAGE_EMULATOR_HOST. Its upload URLs name the address the client used.
// The Go client reads objects with XML-API paths (GET /BUCKET/OBJECT), which
// the server serves only for requests to its public host (the port does not
// count): so that host is the loopback address.
func GCS(t testing.TB) string {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", PublicHost: "127.0.0.1"})
	if err != nil {
		CannotStart(t, "gcs emulator: %v", err)
	}
	t.Cleanup(srv.Stop)
	return strings.TrimPrefix(srv.URL(), "http://")
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

// Prism starts a standalone prism job server (`go tool prism`) on free
// ports and returns its job endpoint once its job service answers.
func Prism(t testing.TB) (endpoint string, log *Log) {
	t.Helper()
	endpoint, log, _ = PrismKillable(t)
	return endpoint, log
}

// PrismKillable is Prism that also returns a function that kills the job
// server with SIGKILL, for tests of a job server that dies mid-job.
//
// A port found free can be taken by another process before prism binds it
// (tests run in parallel, and LOOPBACK workers listen on ephemeral ports):
// so the job server counts as started only when its job service answers a
// GetJobs call, and a prism that exits before that is started again on other
// ports.
func PrismKillable(t testing.TB) (endpoint string, log *Log, kill func()) {
	t.Helper()
	const attempts = 3
	for attempt := 1; ; attempt++ {
		jobPort, webPort := FreePort(t), FreePort(t)
		for webPort == jobPort {
			webPort = FreePort(t)
		}
		exited, log, kill := command(t, io.Discard, "go", "tool", "prism",
			fmt.Sprintf("--job_port=%d", jobPort), fmt.Sprintf("--web_port=%d", webPort))
		endpoint = fmt.Sprintf("localhost:%d", jobPort)
		err := awaitJobService(endpoint, exited)
		if err == nil {
			return endpoint, log, kill
		}
		if attempt == attempts {
			CannotStart(t, "prism job server on %s: %v (attempt %d of %d)\n%s", endpoint, err, attempt, attempts, log.String())
		}
		kill()
	}
}

// awaitJobService waits until the job service at endpoint answers GetJobs,
// the server's process exits (exited), or startTimeout passes.
func awaitJobService(endpoint string, exited <-chan error) error {
	cc, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("job service client: %w", err)
	}
	defer cc.Close()
	client := jobpb.NewJobServiceClient(cc)
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := client.GetJobs(ctx, &jobpb.GetJobsRequest{})
		cancel()
		if err == nil {
			return nil
		}
		select {
		case exitErr := <-exited:
			return fmt.Errorf("go tool prism exited before its job service answered: %v (last call: %v)", exitErr, err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("job service does not answer GetJobs after %v: %w", startTimeout, err)
		}
	}
}
