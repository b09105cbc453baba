package runners

// The portable runners' failure paths against a real standalone job
// service: prism's (`go tool prism`), which speaks the job API of Flink's
// and Spark's job servers. A job whose DoFn blocks (LOOPBACK: it runs in
// this test process) stays RUNNING while the test kills the job server or
// interrupts the run. cluster_test.go runs the same code against the Flink
// and Spark job servers.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// blocking lets a test hold a job in its DoFn: started is closed when the
// first element arrives, release lets every element go.
var blocking struct {
	mu      sync.Mutex
	started chan struct{}
	release chan struct{}
}

func resetBlocking() (started, release chan struct{}) {
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	blocking.started, blocking.release = make(chan struct{}), make(chan struct{})
	return blocking.started, blocking.release
}

// holdElement blocks until the test releases it (or a minute passes).
func holdElement(x int) int {
	blocking.mu.Lock()
	started, release := blocking.started, blocking.release
	blocking.mu.Unlock()
	if started != nil {
		select {
		case <-started:
		default:
			close(started)
		}
	}
	select {
	case <-release:
	case <-time.After(time.Minute):
	}
	return x
}

func init() {
	register.Function1x1(holdElement)
}

func blockingPipeline() *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	beam.ParDo(s, holdElement, beam.Create(s, 1))
	return p
}

// portableConfig is a LOOPBACK job on the job service at endpoint.
func portableConfig(endpoint string) Config {
	return Config{Runner: Universal, Endpoint: endpoint, EnvironmentType: Loopback}
}

// TestPortableEndpointNotRunning: an endpoint where nothing listens fails
// with "connection refused" naming it, before anything is submitted.
func TestPortableEndpointNotRunning(t *testing.T) {
	setFlags(t, "job_name", "recrawl-no-server")
	endpoint := fmt.Sprintf("localhost:%d", testservers.FreePort(t))
	c := portableConfig(endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.CheckEndpoint(ctx); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("CheckEndpoint(%s) = %v, want connection refused", endpoint, err)
	}
	_, err := c.Run(ctx, smallPipeline())
	if err == nil {
		t.Fatal("Run against a job server that is not running succeeded")
	}
	for _, want := range []string{"connection refused", endpoint} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error is not one line: %q", err)
	}
}

// TestPortableJobName: the pipeline options carry --job_name as job_name,
// the option Java job servers name their job after (Flink's does).
func TestPortableJobName(t *testing.T) {
	endpoint, _ := testservers.Prism(t)
	const name = "recrawl-job-name"
	setFlags(t, "job_name", name)
	c := portableConfig(endpoint)
	if _, err := c.Run(context.Background(), smallPipeline()); err != nil {
		t.Fatal(err)
	}
	jobs := testservers.Jobs(t, endpoint, name)
	if len(jobs) != 1 {
		t.Fatalf("the job server knows %d jobs %s, want 1", len(jobs), name)
	}
	got := jobs[0].GetPipelineOptions().GetFields()[JobNameOption].GetStringValue()
	if got != name {
		t.Errorf("pipeline option %s = %q, want %q; options: %v", JobNameOption, got, name, jobs[0].GetPipelineOptions())
	}
}

// TestPortableInterruptCancelsJob: ending the context (Ctrl+C in the
// programs) cancels the job on the job server, and Run says so.
func TestPortableInterruptCancelsJob(t *testing.T) {
	endpoint, _ := testservers.Prism(t)
	const name = "recrawl-interrupted"
	setFlags(t, "job_name", name)
	started, release := resetBlocking()
	defer close(release)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-started
		cancel(errors.New("interrupt"))
	}()
	c := portableConfig(endpoint)
	_, err := c.Run(ctx, blockingPipeline())
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), endpoint) {
		t.Fatalf("Run after an interrupt = %v, want an error saying the job was interrupted, naming %s", err, endpoint)
	}
	t.Logf("error: %v", err)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		jobs := testservers.Jobs(t, endpoint, name)
		if len(jobs) == 1 && jobs[0].GetState() == jobpb.JobState_CANCELLED {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job server's jobs %s after the interrupt: %v, want one CANCELLED", name, jobs)
		}
	}
}

// TestPortableJobServerDies: a job server killed mid-job ends the run with
// one line naming the job server and saying what to restart.
func TestPortableJobServerDies(t *testing.T) {
	endpoint, _, kill := testservers.PrismKillable(t)
	setFlags(t, "job_name", "recrawl-server-dies")
	started, release := resetBlocking()
	defer close(release)
	go func() {
		<-started
		kill()
	}()
	c := portableConfig(endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := c.Run(ctx, blockingPipeline())
	if err == nil {
		t.Fatal("Run succeeded although its job server was killed")
	}
	t.Logf("error: %v", err)
	for _, want := range []string{endpoint, "stopped answering", "restart the job server"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "metrics") {
		t.Errorf("the error is not one line about the job server: %q", err)
	}
}
