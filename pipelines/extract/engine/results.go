package engine

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"

	"github.com/recrawl/recrawl/internal/bytecount"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
)

// The results of a run are kept on disk, never in the driver's memory: a
// result carries its page's outlinks and frontier candidates, tens of KB
// each, while the decisions between rounds need only counts (state.go).
// They are read back, in collection order, when the outputs are written
// and when a refresh looks at them.

// resultStore holds a run's results, in collection order.
type resultStore interface {
	// replay calls yield with every result stored, in collection order;
	// it may be called more than once.
	replay(yield func(extract.Result) error) error
}

// roundResults are the Beam engine's results: those of each committed
// state of the work directory (roundstate.ReadResults), one round in
// memory at a time.
type roundResults struct {
	ctx  context.Context // the run's, for reading the state directories
	dirs []string        // the state directories, in round order
}

// addRound appends the results of the round that wrote state dir.
func (s *roundResults) addRound(dir string) { s.dirs = append(s.dirs, dir) }

func (s *roundResults) replay(yield func(extract.Result) error) error {
	for _, dir := range s.dirs {
		m, err := roundstate.ReadManifest(s.ctx, dir)
		if err != nil {
			return err
		}
		results, err := roundstate.ReadResults(s.ctx, dir, m)
		if err != nil {
			return err
		}
		for _, r := range results {
			if err := yield(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// spooledResults are the sequential engine's results: a gob stream in an
// unnamed temporary file (created in os.TempDir, $TMPDIR, and unlinked at
// once, so nothing is left behind whatever ends the process), read back
// with positioned reads while it is still appended to.
type spooledResults struct {
	f       *os.File
	bw      *bufio.Writer
	enc     *gob.Encoder
	written *bytecount.Writer
	n       int
}

// newSpooledResults creates the temporary file of a run's results.
func newSpooledResults() (*spooledResults, error) {
	f, err := os.CreateTemp("", "recrawl-results-*.gob")
	if err != nil {
		return nil, fmt.Errorf("results of the run: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("results of the run: %w", err)
	}
	cw := bytecount.NewWriter(f)
	bw := bufio.NewWriterSize(cw, 1<<20)
	return &spooledResults{f: f, bw: bw, enc: gob.NewEncoder(bw), written: cw}, nil
}

// write appends one result.
func (s *spooledResults) write(r extract.Result) error {
	if err := s.enc.Encode(&r); err != nil {
		return fmt.Errorf("results of the run (%s), result %d: %w", s.f.Name(), s.n+1, err)
	}
	s.n++
	return nil
}

func (s *spooledResults) replay(yield func(extract.Result) error) error {
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("results of the run (%s): %w", s.f.Name(), err)
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.written.N()), 1<<20))
	for i := 0; i < s.n; i++ {
		var r extract.Result // a new value each time: gob leaves the fields it does not send alone
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("results of the run (%s), result %d: %w", s.f.Name(), i+1, err)
		}
		if err := yield(r); err != nil {
			return err
		}
	}
	return nil
}

// close releases the file (its bytes are gone with it: it has no name).
func (s *spooledResults) close() error { return s.f.Close() }
