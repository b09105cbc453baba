// This file identifies an archive file for an incremental index (`recrawl
// index --add`): a file the index already holds is recognised by its base
// name, its size and the SHA-256 of its first and last blocks, without
// reading the whole file.

package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/recrawl/recrawl/internal/storage"
)

// IdentityBlockBytes is the size of the head and tail blocks a file's
// identity hashes; a smaller file is hashed whole, as both.
const IdentityBlockBytes = 64 << 10

// FileIdentity says which archive file an index holds: its base name (the
// index names files by base name), its size and the hex SHA-256 of its
// first and last IdentityBlockBytes bytes.
type FileIdentity struct {
	Name string
	Size int64
	Head string
	Tail string
}

// SameFile reports whether o is the same file as f: same name, size, head
// and tail.
func (f FileIdentity) SameFile(o FileIdentity) bool { return f == o }

// IdentifyFile reads the head and tail blocks of an archive file (local or
// gs://) and returns its identity.
func IdentifyFile(ctx context.Context, p string) (FileIdentity, error) {
	r, err := storage.OpenReaderAt(ctx, p)
	if err != nil {
		return FileIdentity{}, fmt.Errorf("identify %s: %w", p, err)
	}
	defer r.Close()
	size := r.Size()
	n := min(size, IdentityBlockBytes)
	head, err := hashRange(r, 0, n)
	if err != nil {
		return FileIdentity{}, fmt.Errorf("identify %s: first %d bytes: %w", p, n, err)
	}
	tail := head
	if size > n {
		if tail, err = hashRange(r, size-n, n); err != nil {
			return FileIdentity{}, fmt.Errorf("identify %s: last %d bytes: %w", p, n, err)
		}
	}
	return FileIdentity{Name: storage.Base(p), Size: size, Head: head, Tail: tail}, nil
}

func hashRange(r io.ReaderAt, off, n int64) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, off, n)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// identifyAtOnce bounds the files IdentifyFiles reads at once: a gs://
// file's identity is two ranged reads, whose latency, not bytes, is its
// cost.
const identifyAtOnce = 16

// IdentifyFiles returns the identities of the files, in their order,
// reading up to identifyAtOnce of them at once: a night's run identifies
// every file of the archive, most of which the index holds already. The
// error is that of the first file, in order, that could not be read.
func IdentifyFiles(ctx context.Context, paths []string) ([]FileIdentity, error) {
	ids := make([]FileIdentity, len(paths))
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(identifyAtOnce, len(paths)) {
		wg.Go(func() {
			for i := range next {
				ids[i], errs[i] = IdentifyFile(ctx, paths[i])
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}
