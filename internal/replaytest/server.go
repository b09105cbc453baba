package replaytest

import (
	"bufio"
	"fmt"
	"html/template"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Server serves ReplayWeb.page's ui.js and sw.js and WACZ files from
// 127.0.0.1, with byte ranges (http.ServeContent), and a page that embeds
// <replay-web-page> for one WACZ, URL and timestamp:
//
//	/?wacz=NAME&url=URL&ts=TS   the embedding page
//	/ui.js, /replay/sw.js       the viewer
//	/wacz/NAME                  the WACZ files given to Serve
type Server struct {
	URL string // http://127.0.0.1:PORT

	srv   *http.Server
	rwp   string
	wacz  map[string]string
	mu    sync.Mutex
	stats map[string]*FileStats
}

// FileStats counts the requests for one served WACZ.
type FileStats struct {
	Requests int
	Bytes    int64    // bytes asked for (range lengths, or whole file)
	Ranges   []string // the first 200 requests: method and Range header
}

var embedPage = template.Must(template.New("embed").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>replay check</title>
<script src="/ui.js"></script>
<style>html,body{margin:0;height:100%}replay-web-page{display:block;height:100vh}</style>
</head><body>
<replay-web-page source="/wacz/{{.WACZ}}" url="{{.URL}}" ts="{{.TS}}" embed="replayonly" replayBase="/replay/"></replay-web-page>
</body></html>
`))

// Serve starts a server on a free loopback port. rwpDir holds ui.js and
// sw.js; wacz maps names to files.
func Serve(rwpDir string, wacz map[string]string) (*Server, error) {
	for _, f := range []string{"ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(rwpDir, f)); err != nil {
			return nil, fmt.Errorf("ReplayWeb.page: %w (run scripts/install-replay-deps.sh)", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), rwp: rwpDir, wacz: wacz, stats: map[string]*FileStats{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		embedPage.Execute(w, map[string]string{"WACZ": q.Get("wacz"), "URL": q.Get("url"), "TS": q.Get("ts")})
	})
	// ui.js at the top, for the embedding page, and beside sw.js: the
	// viewer's inner frame (/replay/?source=…, served by the service
	// worker) loads ./ui.js.
	for _, p := range []string{"/ui.js", "/replay/ui.js"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			s.serveFile(w, r, filepath.Join(rwpDir, "ui.js"), "")
		})
	}
	mux.HandleFunc("/replay/sw.js", func(w http.ResponseWriter, r *http.Request) {
		s.serveFile(w, r, filepath.Join(rwpDir, "sw.js"), "")
	})
	mux.HandleFunc("/wacz/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		path, ok := s.wacz[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		s.serveFile(w, r, path, name)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, path, stat string) {
	f, err := os.Open(path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if stat != "" {
		s.mu.Lock()
		fs := s.stats[stat]
		if fs == nil {
			fs = &FileStats{}
			s.stats[stat] = fs
		}
		fs.Requests++
		fs.Bytes += rangeBytes(r.Method, r.Header.Get("Range"), st.Size())
		if len(fs.Ranges) < 200 {
			fs.Ranges = append(fs.Ranges, fmt.Sprintf("%s %s %s", time.Now().UTC().Format("15:04:05.000"), r.Method, r.Header.Get("Range")))
		}
		s.mu.Unlock()
	}
	if strings.HasSuffix(path, ".js") {
		w.Header().Set("Content-Type", "application/javascript")
	}
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// rangeBytes is the length a single "bytes=a-b", "bytes=a-" or "bytes=-n"
// range asks for (the whole size without a range, nothing for HEAD).
func rangeBytes(method, h string, size int64) int64 {
	if method == http.MethodHead {
		return 0
	}
	var a, b int64
	if n, _ := fmt.Sscanf(h, "bytes=-%d", &b); n == 1 {
		return min(b, size)
	}
	if n, _ := fmt.Sscanf(h, "bytes=%d-%d", &a, &b); n == 2 && b >= a {
		return min(b, size-1) - a + 1
	}
	if n, _ := fmt.Sscanf(h, "bytes=%d-", &a); n == 1 && a < size {
		return size - a
	}
	return size
}

// Stats returns the request counts of a WACZ.
func (s *Server) Stats(name string) FileStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fs := s.stats[name]; fs != nil {
		c := *fs
		c.Ranges = slices.Clone(fs.Ranges)
		return c
	}
	return FileStats{}
}

// PageURL is the embedding page for one capture of a served WACZ.
func (s *Server) PageURL(wacz, url, ts string) string {
	q := neturl.Values{"wacz": {wacz}, "url": {url}, "ts": {ts}}
	return s.URL + "/?" + q.Encode()
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// RefusingProxy accepts connections on a loopback port and closes each at
// once, recording the first line of the request (e.g. "CONNECT host:443"):
// Chromium is pointed at it as its proxy, so every request that is not for
// a loopback address fails, and the test can say which ones were tried.
type RefusingProxy struct {
	Addr string
	ln   net.Listener
	mu   sync.Mutex
	seen []string
	done chan struct{}
}

// NewRefusingProxy starts one.
func NewRefusingProxy() (*RefusingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &RefusingProxy{Addr: ln.Addr().String(), ln: ln, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			p.mu.Lock()
			p.seen = append(p.seen, strings.TrimSpace(line))
			p.mu.Unlock()
			c.Close()
		}
	}()
	return p, nil
}

// Seen returns the request lines the proxy refused.
func (p *RefusingProxy) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// Close stops the proxy.
func (p *RefusingProxy) Close() error {
	err := p.ln.Close()
	<-p.done
	return err
}
