package archivegen

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"github.com/klauspost/compress/gzip"
	"hash"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// WARC record assembly. Every record is its own gzip member, so an index can
// point at a record by (offset, length) and a reader can start there.

// Record types, as they appear in WARC-Type.
const (
	typeWarcinfo = "warcinfo"
	typeResponse = "response"
	typeRevisit  = "revisit"
)

// warcDate formats a WARC-Date.
func warcDate(dst []byte, t int64) []byte {
	return time.Unix(t, 0).UTC().AppendFormat(dst, "2006-01-02T15:04:05Z")
}

// sha1Digest formats a digest the way WARC files carry it: "sha1:" + base32.
func sha1Digest(dst []byte, sum []byte) []byte {
	dst = append(dst, "sha1:"...)
	return base32.StdEncoding.AppendEncode(dst, sum)
}

// recordID derives a stable urn:uuid from the seed and what the record is.
func recordID(dst []byte, seed uint64, kind recKind, id, t int64, typ int) []byte {
	a := hash3(seed, streamRecordID, uint64(id)*31+uint64(kind)*7+uint64(typ))
	b := hash3(seed^uint64(t), streamRecordID+1, uint64(id))
	a = a&^0xF000 | 0x4000                                 // version 4 layout
	b = b&^(0xC000_0000_0000_0000) | 0x8000_0000_0000_0000 // variant
	const hexd = "0123456789abcdef"
	var u [32]byte
	for i := range 16 {
		u[i] = hexd[(a>>(60-4*i))&0xF]
		u[16+i] = hexd[(b>>(60-4*i))&0xF]
	}
	dst = append(dst, "<urn:uuid:"...)
	dst = append(dst, u[0:8]...)
	dst = append(dst, '-')
	dst = append(dst, u[8:12]...)
	dst = append(dst, '-')
	dst = append(dst, u[12:16]...)
	dst = append(dst, '-')
	dst = append(dst, u[16:20]...)
	dst = append(dst, '-')
	dst = append(dst, u[20:32]...)
	return append(dst, '>')
}

// warcHeader accumulates the named fields of one record.
type warcHeader struct{ b []byte }

func (h *warcHeader) reset(version string) {
	h.b = append(h.b[:0], "WARC/"...)
	h.b = append(h.b, version...)
	h.b = append(h.b, "\r\n"...)
}

func (h *warcHeader) add(name string, value []byte) {
	h.b = append(h.b, name...)
	h.b = append(h.b, ": "...)
	h.b = append(h.b, value...)
	h.b = append(h.b, "\r\n"...)
}

func (h *warcHeader) addString(name, value string) {
	h.b = append(h.b, name...)
	h.b = append(h.b, ": "...)
	h.b = append(h.b, value...)
	h.b = append(h.b, "\r\n"...)
}

// memberWriter compresses one record into one gzip member.
type memberWriter struct {
	out bytes.Buffer
	gz  *gzip.Writer
	sha hash.Hash
}

func newMemberWriter(level int) (*memberWriter, error) {
	m := &memberWriter{sha: sha1.New()}
	gz, err := gzip.NewWriterLevel(&m.out, level)
	if err != nil {
		return nil, fmt.Errorf("gzip level %d: %w", level, err)
	}
	m.gz = gz
	return m, nil
}

// member compresses the concatenation of parts plus the record trailer and
// returns the member (valid until the next call).
func (m *memberWriter) member(parts ...[]byte) ([]byte, int64, error) {
	m.out.Reset()
	m.gz.Reset(&m.out)
	var n int64
	for _, p := range parts {
		if _, err := m.gz.Write(p); err != nil {
			return nil, 0, err
		}
		n += int64(len(p))
	}
	if _, err := m.gz.Write([]byte("\r\n\r\n")); err != nil {
		return nil, 0, err
	}
	if err := m.gz.Close(); err != nil {
		return nil, 0, err
	}
	return m.out.Bytes(), n + 4, nil
}

// FileSummary describes one written WARC file.
type FileSummary struct {
	Name    string `json:"name"`
	Records int64  `json:"records"`
	Bytes   int64  `json:"bytes"`
}

// fileWriter writes members into files of at most maxSize bytes (a file
// holds at least one record), each starting with a warcinfo record. Files
// are written under a temporary name and renamed when complete.
type fileWriter struct {
	dir, prefix, version string
	maxSize              int64
	seed                 uint64
	info                 string // warcinfo body fields after the filename
	mw                   *memberWriter

	f     *os.File
	bw    *bufio.Writer
	cur   FileSummary
	files []FileSummary
}

func (fw *fileWriter) write(member []byte, firstTime int64) error {
	if fw.f != nil && fw.cur.Bytes+int64(len(member)) > fw.maxSize {
		if err := fw.close(); err != nil {
			return err
		}
	}
	if fw.f == nil {
		if err := fw.open(firstTime); err != nil {
			return err
		}
	}
	if _, err := fw.bw.Write(member); err != nil {
		return fmt.Errorf("write %s: %w", fw.cur.Name, err)
	}
	fw.cur.Records++
	fw.cur.Bytes += int64(len(member))
	return nil
}

func (fw *fileWriter) open(t int64) error {
	ts := time.Unix(t, 0).UTC().Format("20060102150405")
	name := fw.prefix + "-" + ts + "-" + fmt.Sprintf("%05d", len(fw.files)) + ".warc.gz"
	f, err := os.Create(filepath.Join(fw.dir, name+".open"))
	if err != nil {
		return fmt.Errorf("create WARC file: %w", err)
	}
	fw.f, fw.cur = f, FileSummary{Name: name}
	if fw.bw == nil {
		fw.bw = bufio.NewWriterSize(f, 1<<20)
	} else {
		fw.bw.Reset(f)
	}
	body := []byte("software: recrawl-archivegen\r\nformat: WARC File Format " + fw.version + "\r\n" + fw.info)
	var h warcHeader
	h.reset(fw.version)
	h.addString("WARC-Type", typeWarcinfo)
	h.add("WARC-Date", warcDate(nil, t))
	h.addString("WARC-Filename", name)
	h.add("WARC-Record-ID", recordID(nil, fw.seed, 255, int64(len(fw.files)), t, 0))
	h.addString("Content-Type", "application/warc-fields")
	sum := sha1.Sum(body)
	h.add("WARC-Block-Digest", sha1Digest(nil, sum[:]))
	h.addString("Content-Length", strconv.Itoa(len(body)))
	h.b = append(h.b, "\r\n"...)
	m, _, err := fw.mw.member(h.b, body)
	if err != nil {
		return fmt.Errorf("compress warcinfo of %s: %w", name, err)
	}
	return fw.write(m, t)
}

func (fw *fileWriter) close() error {
	if fw.f == nil {
		return nil
	}
	name := fw.cur.Name
	if err := fw.bw.Flush(); err != nil {
		fw.f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := fw.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	if err := os.Rename(filepath.Join(fw.dir, name+".open"), filepath.Join(fw.dir, name)); err != nil {
		return fmt.Errorf("rename %s: %w", name, err)
	}
	fw.files = append(fw.files, fw.cur)
	fw.f = nil
	return nil
}
