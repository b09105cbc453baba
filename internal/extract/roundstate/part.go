package roundstate

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/recrawl/recrawl/internal/storage"
)

// WritePart writes values to the part file p (a gob stream), atomically.
func WritePart[T any](ctx context.Context, p string, values []T) error {
	w, err := storage.Create(ctx, p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := gob.NewEncoder(bw)
	for i := range values {
		if err := enc.Encode(&values[i]); err != nil {
			w.Abort()
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	if err := bw.Flush(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", p, err)
	}
	return w.Close()
}

// ReadPart calls each with every value of the part file p, in order.
func ReadPart[T any](ctx context.Context, p string, each func(T) error) error {
	r, err := storage.Open(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	dec := gob.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for n := 0; ; n++ {
		var v T // a new value each time: gob leaves the fields it does not send alone
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s, value %d: %w", p, n+1, err)
		}
		if err := each(v); err != nil {
			return err
		}
	}
}

// PartWriter writes the part file of one bundle: created with a random name
// in Dir on the first value, committed (and named in the manifest) by
// Finish. Between files it holds no buffer: a DoFn that owns it may be kept
// long after its last bundle (the Go SDK harness keeps the DoFns it ran
// until the worker ends). The zero value is not usable: use NewPartWriter.
type PartWriter struct {
	dir, kind string
	w         storage.Writer
	bw        *bufio.Writer
	enc       *gob.Encoder
	n         int
	p         string
}

// NewPartWriter returns a writer of part files of the kind (KindResults or
// KindFrontier) in dir.
func NewPartWriter(dir, kind string) PartWriter { return PartWriter{dir: dir, kind: kind} }

// Write appends one value (a pointer to it).
func (pw *PartWriter) Write(ctx context.Context, v any) error {
	if pw.w == nil {
		var id [8]byte
		rand.Read(id[:])
		pw.p = storage.Join(pw.dir, "part-"+hex.EncodeToString(id[:])+".gob")
		w, err := storage.Create(ctx, pw.p)
		if err != nil {
			return err
		}
		pw.w, pw.bw, pw.n = w, bufio.NewWriterSize(w, 1<<20), 0
		pw.enc = gob.NewEncoder(pw.bw)
	}
	pw.n++
	if err := pw.enc.Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", pw.p, err)
	}
	return nil
}

// Finish commits the file, if any, and emits its manifest line.
func (pw *PartWriter) Finish(emit func(string)) error {
	if pw.w == nil {
		return nil
	}
	w, bw := pw.w, pw.bw
	pw.w, pw.bw, pw.enc = nil, nil, nil
	if err := bw.Flush(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", pw.p, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	emit(ManifestLine(pw.kind, pw.p, pw.n))
	return nil
}

// Abort discards an unfinished file (a bundle that failed).
func (pw *PartWriter) Abort() {
	if pw.w != nil {
		pw.w.Abort()
	}
	pw.w, pw.bw, pw.enc = nil, nil, nil
}
