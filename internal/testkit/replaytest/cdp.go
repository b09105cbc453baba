package replaytest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Browser is a headless Chromium driven through the DevTools protocol over
// --remote-debugging-pipe: Chromium reads JSON commands, each ended by a NUL
// byte, from file descriptor 3 and writes responses and events to file
// descriptor 4. A pipe rather than a debugging port (and rather than a
// client library such as chromedp): nothing else on the machine can connect
// to it, there is no port to pick or wait for, and the few commands the
// tests need (create a target, navigate, evaluate) are a page of code
// instead of a dependency tree.
type Browser struct {
	cmd    *exec.Cmd
	w      *os.File // our end of Chromium's fd 3
	r      *os.File // our end of Chromium's fd 4
	stderr *strings.Builder
	// logFile is Chromium's log (BrowserOptions.LogFile), closed with
	// the browser.
	logFile *os.File

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpReply
	err     error // set once the reader stops
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// BrowserOptions configure Launch.
type BrowserOptions struct {
	Binary  string // Chromium binary
	Proxy   string // host:port every non-loopback request is sent to (a proxy that refuses)
	DataDir string // a fresh user data directory
	// LogFile, when set, receives Chromium's own log (--enable-logging
	// --v=0), which includes the console messages of pages, frames and
	// the service worker: what a failed replay is diagnosed with.
	LogFile string
}

// Launch starts Chromium headless. It reaches the network only through
// opts.Proxy (loopback addresses bypass proxies in Chromium), with background
// networking (component updates, safe browsing, metrics) off.
func Launch(opts BrowserOptions) (*Browser, error) {
	toChrome, ourW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ourR, fromChrome, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := []string{
		"--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
		"--user-data-dir=" + opts.DataDir,
		"--proxy-server=http://" + opts.Proxy,
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
		"--metrics-recording-only", "--safebrowsing-disable-auto-update", "--mute-audio",
		"--disable-features=MediaRouter,OptimizationHints,Translate",
	}
	var stderr strings.Builder
	var stderrW io.Writer = &limitedWriter{b: &stderr, n: 1 << 16}
	var logFile *os.File
	if opts.LogFile != "" {
		if logFile, err = os.Create(opts.LogFile); err != nil {
			return nil, err
		}
		args = append(args, "--enable-logging=stderr", "--v=0")
		stderrW = io.MultiWriter(stderrW, logFile)
	}
	args = append(args, "about:blank")
	cmd := exec.Command(opts.Binary, args...)
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	cmd.Stderr = stderrW
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(opts.DataDir, "home"))
	if err := cmd.Start(); err != nil {
		if logFile != nil {
			logFile.Close()
		}
		return nil, fmt.Errorf("start %s: %w", opts.Binary, err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &Browser{cmd: cmd, w: ourW, r: ourR, stderr: &stderr, logFile: logFile, pending: map[int]chan cdpReply{}}
	go b.read()
	return b, nil
}

// read dispatches responses to their callers; events are dropped.
func (b *Browser) read() {
	br := bufio.NewReaderSize(b.r, 1<<20)
	var err error
	for {
		var msg []byte
		msg, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
	b.mu.Lock()
	b.err = fmt.Errorf("chromium closed the DevTools pipe: %v; stderr: %s", err, b.stderr.String())
	for id, ch := range b.pending {
		close(ch)
		delete(b.pending, id)
	}
	b.mu.Unlock()
}

// Call sends one DevTools command (to a page session, or to the browser
// when session is empty) and decodes its result into out (may be nil).
func (b *Browser) Call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return b.err
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			b.mu.Lock()
			defer b.mu.Unlock()
			return fmt.Errorf("%s: %w", method, b.err)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	}
}

// Page is one tab, attached in flat mode.
type Page struct {
	b                 *Browser
	TargetID, Session string
}

// NewPage opens a tab at url.
func (b *Browser) NewPage(ctx context.Context, url string) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": url}, &t); err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &s); err != nil {
		return nil, err
	}
	return &Page{b: b, TargetID: t.TargetID, Session: s.SessionID}, nil
}

// Close closes the tab.
func (p *Page) Close(ctx context.Context) error {
	return p.b.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.TargetID}, nil)
}

// Eval evaluates a JavaScript expression in the page's top frame (awaiting
// a promise) and decodes its JSON value into out.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.Call(ctx, p.Session, "Runtime.evaluate",
		map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		msg := e.Text
		if e.Exception != nil {
			msg = e.Exception.Description
		}
		return errors.New("javascript: " + msg)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot writes a PNG of the tab as it is now to path.
func (p *Page) Screenshot(ctx context.Context, path string) error {
	var r struct {
		Data []byte `json:"data"` // base64 in JSON
	}
	if err := p.b.Call(ctx, p.Session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return err
	}
	return os.WriteFile(path, r.Data, 0o644)
}

// Close ends Chromium and waits for it.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.Call(ctx, "", "Browser.close", nil, nil)
	b.w.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
		err = <-done
	}
	b.r.Close()
	if b.logFile != nil {
		b.logFile.Close()
	}
	return err
}

// limitedWriter keeps the first n bytes written.
type limitedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
	n  int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if rest := w.n - w.b.Len(); rest > 0 {
		w.b.Write(p[:min(len(p), rest)])
	}
	return len(p), nil
}

var _ io.Writer = (*limitedWriter)(nil)
