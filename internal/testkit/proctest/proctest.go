// Package proctest runs a command under test as a subprocess and kills it at
// a chosen point of its work: once a file appears, or once a condition on a
// server it talks to holds. Tests of crash safety (an index or an extraction
// killed with SIGKILL half-way, then run again) use it to stop the real
// binary where a user's power cut or OOM kill would.
package proctest

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// outputGrace is how long Wait waits for the output of a command that has
// ended, when a child of it still holds its standard output or error.
const outputGrace = 2 * time.Second

// Process is a started command whose combined output is kept.
type Process struct {
	Cmd    *exec.Cmd
	output Log
	exited chan error
	err    error
	ended  bool
}

// Start starts cmd with its stdout and stderr (those the caller left nil)
// kept for Output, and fails the test if it cannot start.
func Start(t testing.TB, cmd *exec.Cmd) *Process {
	t.Helper()
	p := &Process{Cmd: cmd, exited: make(chan error, 1)}
	if cmd.Stdout == nil {
		cmd.Stdout = &p.output
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &p.output
	}
	if cmd.WaitDelay == 0 {
		// A child the command started may outlive it and hold its output
		// open; Wait then returns this long after the command ended.
		cmd.WaitDelay = outputGrace
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if !p.ended {
			cmd.Process.Kill()
			p.Wait()
		}
	})
	return p
}

// Output is what the command has written so far to the streams Start kept.
func (p *Process) Output() string { return p.output.String() }

// Wait waits for the command to end and returns cmd.Wait's error.
func (p *Process) Wait() error {
	if !p.ended {
		p.err = <-p.exited
		p.ended = true
	}
	return p.err
}

// WaitFor polls ready every poll until it returns true. It fails the test
// if the command ends first (what it waited for came too late, or never)
// or if timeout passes; what names the awaited point in those messages.
func (p *Process) WaitFor(t testing.TB, what string, poll, timeout time.Duration, ready func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	for !ready() {
		select {
		case err := <-p.exited:
			p.err, p.ended = err, true
			t.Fatalf("%s ended (%v) before %s:\n%s", p.Cmd.Path, err, what, tail(p.Output()))
		case <-deadline:
			p.Cmd.Process.Kill()
			p.Wait()
			t.Fatalf("no %s after %v:\n%s", what, timeout, tail(p.Output()))
		case <-time.After(poll):
		}
	}
}

// WaitForFile waits, as WaitFor, until path exists.
func (p *Process) WaitForFile(t testing.TB, path string, timeout time.Duration) {
	t.Helper()
	p.WaitFor(t, path, 2*time.Millisecond, timeout, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// Kill sends SIGKILL and fails the test unless the command died of it (it
// had ended on its own before the signal arrived).
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL %s: %v", p.Cmd.Path, err)
	}
	err := p.Wait()
	ws, ok := p.Cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("%s was not killed by SIGKILL (%v): it ended before the kill point:\n%s", p.Cmd.Path, err, tail(p.Output()))
	}
}

// tail is the end of a long output, enough to show the last log lines.
func tail(s string) string {
	const keep = 4000
	if len(s) > keep {
		return "…" + s[len(s)-keep:]
	}
	return s
}

// Log collects a command's output for failure messages: a bytes.Buffer that
// the command's output copiers and the test can use at the same time.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Log) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Log) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
