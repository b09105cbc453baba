package archivegen

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"github.com/klauspost/compress/gzip"
	"strconv"
)

// builder renders records; each worker owns one.
type builder struct {
	w       *world
	plan    *plan
	version string
	rd      *renderer
	mw      *memberWriter
	body    []byte
	http    []byte
	hdr     warcHeader
	gzBuf   bytes.Buffer
	gzBody  *gzip.Writer
}

func newBuilder(w *world, p *plan, version string, level int) (*builder, error) {
	mw, err := newMemberWriter(level)
	if err != nil {
		return nil, err
	}
	gz, _ := gzip.NewWriterLevel(nil, 6) // what a web server would use
	return &builder{w: w, plan: p, version: version, rd: newRenderer(w), mw: mw, gzBody: gz}, nil
}

// built is one compressed record and what the summary needs to know of it.
type built struct {
	member       []byte
	warcType     string
	uncompressed int64
}

func htmlContentType(c charset) string {
	switch c {
	case charsetUTF8:
		return "text/html; charset=utf-8"
	case charsetLatin1Header:
		return "text/html; charset=ISO-8859-1"
	}
	return "text/html"
}

var reasons = map[int]string{200: "OK", 301: "Moved Permanently", 404: "Not Found"}

// response is the HTTP response of one capture; its body is in
// builder.body.
type response struct {
	h           *Host
	target      string // the URL captured
	status      int
	location    string // where a redirect points
	contentType string
	lastMod     int64 // Last-Modified (0: none)
}

// build renders the record of one capture.
func (b *builder) build(s recSpec) (built, error) {
	resp, err := b.renderBody(s)
	if err != nil {
		return built{}, err
	}
	payload := b.body
	if s.gzip {
		b.gzBuf.Reset()
		b.gzBody.Reset(&b.gzBuf)
		b.gzBody.Write(payload)
		if err := b.gzBody.Close(); err != nil {
			return built{}, fmt.Errorf("gzip body of %s: %w", resp.target, err)
		}
		payload = b.gzBuf.Bytes()
	}
	b.http = appendHTTPHeader(b.http[:0], s, &resp, len(payload))
	return b.record(s, resp.target, resp.h.ip, b.http, payload)
}

// renderBody renders the body of a capture's response into b.body and
// returns the response.
func (b *builder) renderBody(s recSpec) (response, error) {
	w := b.w
	resp := response{status: 200}
	b.body = b.body[:0]
	switch s.kind {
	case recPrint, recAMP:
		a := w.article(s.id)
		resp.h, resp.target = a.host, variantURL(&a, s.kind == recAMP)
		resp.contentType = htmlContentType(resp.h.Charset)
		b.body = encodeBody(b.rd.renderVariant(b.body, &a, s.version, s.kind == recAMP), resp.h.Charset)
	case recArticle, recArticle404, recAlias, recPhantom404, recImage:
		a := w.article(s.id)
		h := a.host
		resp.h, resp.target = h, a.url
		resp.contentType = htmlContentType(h.Charset)
		switch s.kind {
		case recArticle:
			b.body = encodeBody(b.rd.renderArticle(b.body, &a, s.version), h.Charset)
		case recArticle404, recPhantom404:
			resp.status = 404
			b.body = encodeBody(b.rd.render404(b.body, h, a.url, s.version), h.Charset)
		case recAlias:
			resp.status, resp.target, resp.location = 301, a.alias, a.url
			resp.contentType = "text/html; charset=iso-8859-1"
			b.body = redirectBody(b.body, resp.location)
		case recImage:
			resp.target = "http://" + h.Name + "/images/" + strconv.FormatInt(a.id, 36) + ".jpg"
			resp.contentType, resp.lastMod = "image/jpeg", a.pub
			b.body = imageBody(b.body, w.seed, a.id)
		}
	case recList:
		lp := &b.plan.lists[s.id]
		resp.h, resp.target = lp.host, lp.url(w)
		resp.contentType = htmlContentType(resp.h.Charset)
		b.body = encodeBody(b.rd.renderList(b.body, lp, s.t-s.t%secondsPerDay, s.version), resp.h.Charset)
	case recHostRedirect:
		h := w.hosts[s.id]
		resp.h, resp.status, resp.target, resp.location = h, 301, "http://"+h.Alt+"/", "http://"+h.Name+"/"
		resp.contentType = "text/html; charset=iso-8859-1"
		b.body = redirectBody(b.body, resp.location)
	case recCSS:
		h := w.hosts[s.id]
		resp.h, resp.target, resp.contentType = h, "http://"+h.Name+"/css/site.css", "text/css"
		resp.lastMod = day(2007, 1, 2)
		if s.version == 1 {
			resp.lastMod = day(2011, 1, 1)
		}
		b.body = cssBody(b.body, h, s.version == 1)
	default:
		return response{}, fmt.Errorf("record kind %d: unknown", s.kind)
	}
	return resp, nil
}

// appendHTTPHeader appends the HTTP header of a response whose payload is
// payloadLen bytes (gzipped when s.gzip).
func appendHTTPHeader(hb []byte, s recSpec, resp *response, payloadLen int) []byte {
	h := resp.h
	hb = append(hb, "HTTP/1.1 "...)
	hb = strconv.AppendInt(hb, int64(resp.status), 10)
	hb = append(hb, ' ')
	hb = append(hb, reasons[resp.status]...)
	hb = append(hb, "\r\nDate: "...)
	hb = httpDate(hb, s.t)
	hb = append(hb, "\r\nServer: "...)
	hb = append(hb, h.server...)
	if h.URLStyle == styleQuery && resp.contentType != "text/css" && resp.contentType != "image/jpeg" {
		hb = append(hb, "\r\nX-Powered-By: PHP/5.2.17"...)
	}
	if resp.location != "" {
		hb = append(hb, "\r\nLocation: "...)
		hb = append(hb, resp.location...)
	}
	if resp.lastMod != 0 {
		hb = append(hb, "\r\nLast-Modified: "...)
		hb = httpDate(hb, resp.lastMod)
	}
	hb = append(hb, "\r\nContent-Type: "...)
	hb = append(hb, resp.contentType...)
	if s.gzip {
		hb = append(hb, "\r\nContent-Encoding: gzip\r\nVary: Accept-Encoding"...)
	}
	hb = append(hb, "\r\nContent-Length: "...)
	hb = strconv.AppendInt(hb, int64(payloadLen), 10)
	return append(hb, "\r\nConnection: close\r\n\r\n"...)
}

// record writes the WARC record of a capture of target (from the server at
// ip) and compresses it: a response with the HTTP header hb and the
// payload, or, when s refers to an earlier capture, a revisit with the
// header alone.
func (b *builder) record(s recSpec, target, ip string, hb, payload []byte) (built, error) {
	w := b.w
	payloadSum := sha1.Sum(payload)
	revisit := s.refersTo != 0
	blockLen := len(hb)
	var blockSum [sha1.Size]byte
	if revisit {
		blockSum = sha1.Sum(hb)
	} else {
		d := b.mw.sha
		d.Reset()
		d.Write(hb)
		d.Write(payload)
		d.Sum(blockSum[:0])
		blockLen += len(payload)
	}

	wh := &b.hdr
	wh.reset(b.version)
	typ := typeResponse
	if revisit {
		typ = typeRevisit
	}
	wh.addString("WARC-Type", typ)
	wh.add("WARC-Record-ID", recordID(nil, w.seed, s.kind, s.id, s.t, 0))
	wh.add("WARC-Date", warcDate(nil, s.t))
	wh.addString("WARC-Target-URI", target)
	wh.addString("WARC-IP-Address", ip)
	if revisit {
		wh.add("WARC-Refers-To", recordID(nil, w.seed, s.kind, s.id, s.refersTo, 0))
		wh.addString("WARC-Refers-To-Target-URI", target)
		wh.add("WARC-Refers-To-Date", warcDate(nil, s.refersTo))
		wh.addString("WARC-Profile", "http://netpreserve.org/warc/"+b.version+"/revisit/identical-payload-digest")
	}
	wh.addString("Content-Type", "application/http; msgtype=response")
	wh.add("WARC-Payload-Digest", sha1Digest(nil, payloadSum[:]))
	wh.add("WARC-Block-Digest", sha1Digest(nil, blockSum[:]))
	wh.addString("Content-Length", strconv.Itoa(blockLen))
	wh.b = append(wh.b, "\r\n"...)

	var m []byte
	var n int64
	var err error
	if revisit {
		m, n, err = b.mw.member(wh.b, hb)
	} else {
		m, n, err = b.mw.member(wh.b, hb, payload)
	}
	if err != nil {
		return built{}, fmt.Errorf("compress record of %s: %w", target, err)
	}
	return built{member: bytes.Clone(m), warcType: typ, uncompressed: n}, nil
}
