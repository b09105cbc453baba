// Package replay serves extraction runs' collections to ReplayWeb.page on
// loopback, so that a researcher goes from a document in report.html to
// the archived page in one click, without a wayback service.
//
// A Server serves, from one 127.0.0.1 address:
//
//	/                         the report folder (report.html and its plots),
//	                          when one is given; "/" opens report.html
//	/view?wacz=NAME&url=URL&ts=TIMESTAMP
//	                          a page embedding <replay-web-page> for one
//	                          capture of a served WACZ
//	/ui.js, /replay/ui.js,    ReplayWeb.page's prebuilt viewer from its npm
//	/replay/sw.js             package (scripts/install-replay-deps.sh)
//	/replay/                  the viewer's own page, as its service worker
//	                          writes it (for a frame the worker does not yet
//	                          control)
//	/wacz/NAME                the WACZ files, with byte ranges (the viewer
//	                          reads the index and records by range)
//	/labels                   the researcher's marks: GET reads them, POST
//	                          (from the server's own pages only) writes one
//	                          to the labels file (labels.go)
//
// The report links documents relatively ("view?wacz=…", see ViewLink), so
// the same report.html works whatever port the server got. Command is the
// "extract serve" command.
//
// What a page in the researcher's browser cannot make it do:
//   - Requests whose Host header is not a loopback name (localhost,
//     127.0.0.0/8, [::1]) or the listening address get 403: a page of
//     another site that rebinds its name to 127.0.0.1 (DNS rebinding)
//     cannot read the report, evaluation.json or the WACZ files.
//   - The report folder is served through an os.Root: regular files only,
//     no directory listings (404), and no symbolic link leads out of it.
//   - Connections are bounded: headers within ReadHeaderTimeout, a request
//     within ReadTimeout, a response within WriteTimeout, an idle
//     keep-alive connection closed after IdleTimeout, and at most MaxConns
//     connections open at once (the others wait to be accepted).
package replay

import (
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"
)

// Options configure Start.
type Options struct {
	// Addr is the loopback address to listen on ("127.0.0.1:0": a free
	// port). Only loopback addresses are accepted.
	Addr string
	// ViewerDir holds ReplayWeb.page's ui.js and sw.js.
	ViewerDir string
	// ReportDir, when set, is served at "/".
	ReportDir string
	// WACZ maps the names the viewer asks for (/wacz/NAME) to files.
	WACZ map[string]string
	// Labels, when set, is the labels file the report's marks are written
	// to, through /labels (labels.go).
	Labels *LabelsOptions

	// limits overrides DefaultLimits field by field (tests).
	limits Limits
}

// Limits bound what one client can hold of the server.
type Limits struct {
	ReadHeaderTimeout time.Duration // to read a request's headers
	ReadTimeout       time.Duration // to read a whole request
	WriteTimeout      time.Duration // to write a response: a whole WACZ download
	IdleTimeout       time.Duration // a keep-alive connection without requests
	MaxConns          int           // connections open at once
}

// DefaultLimits are the server's limits. A browser opens about six
// connections to one host; WriteTimeout leaves a multi-GB WACZ download
// over loopback ample time.
var DefaultLimits = Limits{
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      30 * time.Minute,
	IdleTimeout:       2 * time.Minute,
	MaxConns:          64,
}

// orDefault fills the zero fields of l from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.ReadHeaderTimeout > 0 {
		d.ReadHeaderTimeout = l.ReadHeaderTimeout
	}
	if l.ReadTimeout > 0 {
		d.ReadTimeout = l.ReadTimeout
	}
	if l.WriteTimeout > 0 {
		d.WriteTimeout = l.WriteTimeout
	}
	if l.IdleTimeout > 0 {
		d.IdleTimeout = l.IdleTimeout
	}
	if l.MaxConns > 0 {
		d.MaxConns = l.MaxConns
	}
	return d
}

// Server is a running server; see the package documentation.
type Server struct {
	URL string // http://127.0.0.1:PORT

	srv   *http.Server
	root  *os.Root // the report folder, nil without one
	wacz  map[string]string
	mu    sync.Mutex
	stats map[string]*FileStats
}

// FileStats counts the requests for one served WACZ.
type FileStats struct {
	Requests int
	Bytes    int64    // bytes asked for (range lengths, or whole file)
	Ranges   []string // the first 200 requests: time, method and Range header
}

var viewPage = template.Must(template.New("view").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.URL}} ({{.TS}}) – replay</title>
<script src="/ui.js"></script>
<style>html,body{margin:0;height:100%}replay-web-page{display:block;height:100vh}</style>
</head><body>
<replay-web-page source="{{.Source}}" url="{{.URL}}" ts="{{.TS}}" embed="replayonly" replayBase="/replay/"></replay-web-page>
</body></html>
`))

// ViewerIndexStat is the Stats name of the requests for /replay/ that
// reached the server (a frame the service worker did not control yet).
const ViewerIndexStat = "/replay/"

// viewerIndex is the page ReplayWeb.page's service worker serves for its
// own folder (sw.js, getIndexHtml, with the default script and tag).
const viewerIndex = `<!doctype html>
<html>
<head><script src="./ui.js"></script></head>
<body>
<replay-app-main></replay-app-main>
</body></html>
`

// ViewLink is the link report.html gives a document: relative, so it
// resolves against wherever the Server serves the report.
func ViewLink(wacz, timestamp, url string) string {
	return "view?" + neturl.Values{"wacz": {wacz}, "url": {url}, "ts": {timestamp}}.Encode()
}

// Start checks the viewer files, listens and serves in the background.
func Start(o Options) (*Server, error) {
	for _, f := range []string{"ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(o.ViewerDir, f)); err != nil {
			return nil, fmt.Errorf("ReplayWeb.page: %w (run scripts/install-replay-deps.sh)", err)
		}
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("address %q: only loopback addresses are served (127.0.0.1)", addr)
	}
	for name, path := range o.WACZ {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("collection %s: %w", name, err)
		}
	}
	var labels *labelsFile
	if o.Labels != nil {
		if labels, err = openLabels(*o.Labels); err != nil {
			return nil, err
		}
	}
	var root *os.Root
	if o.ReportDir != "" {
		if root, err = os.OpenRoot(o.ReportDir); err != nil {
			return nil, fmt.Errorf("report folder: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if root != nil {
			root.Close()
		}
		return nil, err
	}
	limits := o.limits.orDefault()
	s := &Server{URL: "http://" + ln.Addr().String(), root: root, wacz: o.WACZ, stats: map[string]*FileStats{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/view", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if _, ok := s.wacz[q.Get("wacz")]; !ok {
			http.Error(w, fmt.Sprintf("no collection %q is served", q.Get("wacz")), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		viewPage.Execute(w, map[string]string{"Source": "/wacz/" + neturl.PathEscape(q.Get("wacz")), "URL": q.Get("url"), "TS": q.Get("ts")})
	})
	// ui.js at the top, for the embedding page, and beside sw.js: the
	// viewer's inner frame (/replay/?source=…, served by the service
	// worker) loads ./ui.js.
	for _, p := range []string{"/ui.js", "/replay/ui.js"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			s.serveFile(w, r, filepath.Join(o.ViewerDir, "ui.js"), "")
		})
	}
	// The viewer's inner frame, /replay/?source=…, is answered by the
	// service worker (serveIndex=1) once it controls the page. On a fresh
	// browser profile the frame can be requested before that (the worker
	// is registered but has not yet claimed its clients), and then reaches
	// this server: it answers with the same page the worker writes
	// (getIndexHtml in sw.js), which loads the viewer and goes on as
	// usual. Without it the frame was a 404 and nothing replayed, on
	// about 1 fresh profile in 5 (and the 19,045-document run of the last
	// session that never asked for its WACZ).
	mux.HandleFunc("/replay/{$}", func(w http.ResponseWriter, r *http.Request) {
		s.note(ViewerIndexStat, r, int64(len(viewerIndex)))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, viewerIndex)
	})
	mux.HandleFunc("/replay/sw.js", func(w http.ResponseWriter, r *http.Request) {
		s.serveFile(w, r, filepath.Join(o.ViewerDir, "sw.js"), "")
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
	if labels != nil {
		mux.Handle("/labels", labels)
	}
	if root != nil {
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/" {
				http.Redirect(w, r, "/report.html", http.StatusFound)
				return
			}
			s.serveReportFile(w, r)
		})
	}
	s.srv = &http.Server{Handler: loopbackHostsOnly(ln.Addr().String(), mux),
		ReadHeaderTimeout: limits.ReadHeaderTimeout, ReadTimeout: limits.ReadTimeout,
		WriteTimeout: limits.WriteTimeout, IdleTimeout: limits.IdleTimeout}
	go s.srv.Serve(netutil.LimitListener(ln, limits.MaxConns))
	return s, nil
}

// loopbackHostsOnly answers 403 to a request whose Host header is neither
// a loopback name nor bound (the listening address), with or without its
// port.
func loopbackHostsOnly(bound string, next http.Handler) http.Handler {
	boundHost, _, _ := net.SplitHostPort(bound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host, boundHost) {
			http.Error(w, fmt.Sprintf("host %q is not served: open this server as 127.0.0.1 or localhost", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names localhost, a loopback
// IP address or boundHost.
func loopbackHost(hostHeader, boundHost string) bool {
	host := hostHeader
	if h, _, err := net.SplitHostPort(hostHeader); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || host == boundHost {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveReportFile serves a regular file of the report folder, opened
// through the folder's os.Root so that no name or symbolic link leads out
// of it; directories and other files are 404.
func (s *Server) serveReportFile(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	f, err := s.root.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, st.Name(), st.ModTime(), f)
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
		s.note(stat, r, st.Size())
	}
	switch {
	case strings.HasSuffix(path, ".js"):
		w.Header().Set("Content-Type", "application/javascript")
	case strings.HasSuffix(path, ".wacz"):
		w.Header().Set("Content-Type", "application/wacz")
	}
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// note counts one request under name.
func (s *Server) note(name string, r *http.Request, size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.stats[name]
	if fs == nil {
		fs = &FileStats{}
		s.stats[name] = fs
	}
	fs.Requests++
	fs.Bytes += rangeBytes(r.Method, r.Header.Get("Range"), size)
	if len(fs.Ranges) < 200 {
		fs.Ranges = append(fs.Ranges, fmt.Sprintf("%s %s %s", time.Now().UTC().Format("15:04:05.000"), r.Method, r.Header.Get("Range")))
	}
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

// PageURL is the absolute address of the view page of one capture.
func (s *Server) PageURL(wacz, url, ts string) string {
	return s.URL + "/" + ViewLink(wacz, ts, url)
}

// Close stops the server.
func (s *Server) Close() error {
	err := s.srv.Close()
	if s.root != nil {
		s.root.Close()
	}
	return err
}
