package replay

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reportServer serves a report folder holding report.html, a sub-folder
// with a plot, and a symbolic link to a file outside the folder.
func reportServer(t *testing.T, limits Limits) (*Server, string) {
	t.Helper()
	dir, rep := writeReport(t)
	w := filepath.Join(dir, "run.wacz")
	os.WriteFile(w, []byte("wacz bytes"), 0o644)
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("outside the report"), 0o644)
	os.MkdirAll(filepath.Join(rep, "sub"), 0o755)
	os.WriteFile(filepath.Join(rep, "sub", "plot.svg"), []byte("<svg/>"), 0o644)
	if err := os.Symlink(secret, filepath.Join(rep, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(rep, "up")); err != nil {
		t.Fatal(err)
	}
	return serve(t, Options{ReportDir: rep, WACZ: map[string]string{"ctf.wacz": w}, limits: limits}), dir
}

// getHost is a GET of path with the given Host header.
func getHost(t *testing.T, s *Server, host, path string) (int, string) {
	t.Helper()
	return request(t, s, "GET", path, "", map[string]string{"Host": host})
}

// TestForeignHostRefused: a page that rebinds its own name to 127.0.0.1
// sends its name as Host; it gets 403 for every path, while the loopback
// names and the bound address are served.
func TestForeignHostRefused(t *testing.T) {
	s, _ := reportServer(t, Limits{})
	bound := strings.TrimPrefix(s.URL, "http://")
	_, port, _ := net.SplitHostPort(bound)
	for _, host := range []string{"attacker.com:" + port, "attacker.com", "127.0.0.1.attacker.com:" + port, "localhost.attacker.com", "10.0.0.1:" + port, "[::2]:" + port} {
		for _, p := range []string{"/wacz/ctf.wacz", "/report.html", "/view?wacz=ctf.wacz&url=x&ts=1", "/ui.js"} {
			if code, body := getHost(t, s, host, p); code != http.StatusForbidden || !strings.Contains(body, "not served") {
				t.Errorf("Host %s, %s: %d %q, want 403", host, p, code, body)
			}
		}
	}
	for _, host := range []string{bound, "127.0.0.1", "localhost:" + port, "LOCALHOST", "127.1.2.3:" + port, "[::1]:" + port, "[::1]"} {
		if code, body := getHost(t, s, host, "/wacz/ctf.wacz"); code != http.StatusOK || body != "wacz bytes" {
			t.Errorf("Host %s: %d %q, want 200", host, code, body)
		}
	}
}

// TestReportFolderConfined: the report folder serves its regular files
// and nothing else: no listing of a folder however it is named, no file
// reached through a symbolic link that leads out of it.
func TestReportFolderConfined(t *testing.T) {
	s, _ := reportServer(t, Limits{})
	for p, want := range map[string]string{"/report.html": "<p>report</p>", "/sub/plot.svg": "<svg/>", "/%2e/report.html": "<p>report</p>"} {
		if code, body := getHost(t, s, "127.0.0.1", p); code != http.StatusOK || body != want {
			t.Errorf("%s: %d %q, want 200 %q", p, code, body, want)
		}
	}
	for _, p := range []string{"/%2e/", "/sub/", "/sub", "/./sub/", "/link.txt", "/up/secret.txt", "/up/", "/../secret.txt", "/%2e%2e/secret.txt", "/nothing.html"} {
		code, body := getHost(t, s, "127.0.0.1", p)
		if code == http.StatusOK || strings.Contains(body, "outside the report") || strings.Contains(body, "href=") {
			t.Errorf("%s: %d %q, want no file", p, code, body)
		}
	}
}

// TestConnectionLimits: an idle keep-alive connection is closed after
// IdleTimeout, a connection that never finishes its headers after
// ReadHeaderTimeout, and no more than MaxConns are served at once.
func TestConnectionLimits(t *testing.T) {
	s, _ := reportServer(t, Limits{ReadHeaderTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, MaxConns: 3})
	addr := strings.TrimPrefix(s.URL, "http://")
	request := func(c net.Conn, r *bufio.Reader) error {
		fmt.Fprintf(c, "GET /report.html HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	closedWithin := func(c net.Conn, r *bufio.Reader, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := r.ReadByte()
		return err == io.EOF
	}
	var idle []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := request(c, bufio.NewReader(c)); err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// A fourth connection waits while three are open.
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extraR := bufio.NewReader(extra)
	fmt.Fprintf(extra, "GET /report.html HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	extra.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
	if _, err := extraR.Peek(1); err == nil {
		t.Error("a fourth connection was served while three were open (MaxConns 3)")
	}
	for i, c := range idle {
		if !closedWithin(c, bufio.NewReader(c), 5*time.Second) {
			t.Errorf("idle connection %d still open 5 s after IdleTimeout 300 ms", i)
		}
	}
	// Once they are closed, the fourth is answered.
	extra.SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(extraR, nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the waiting connection after the idle ones closed: %v %v", resp, err)
	}
	// Headers that never end.
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "GET /report.html HTTP/1.1\r\nHost: %s\r\n", addr)
	if !closedWithin(slow, bufio.NewReader(slow), 5*time.Second) {
		t.Error("a connection with unfinished headers still open 5 s after ReadHeaderTimeout 300 ms")
	}
}
