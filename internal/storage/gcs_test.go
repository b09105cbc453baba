package storage

import (
	"github.com/recrawl/recrawl/internal/testkit/testservers"

	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	gcs "cloud.google.com/go/storage"
)

// TestGCS runs the gs:// half of the package against fake-gcs-server,
// started by testservers.GCS (in process). The package's GCS client is a
// process-wide singleton created on first use, so everything gs:// in this
// test process happens here, after STORAGE_EMULATOR_HOST is set.
func TestGCS(t *testing.T) {
	emulator := testservers.GCS(t)
	proxy := testservers.StartCountingProxy(t, emulator)
	t.Setenv("STORAGE_EMULATOR_HOST", proxy.Addr())
	ctx := context.Background()

	c, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Bucket("recrawl-test").Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	const dir = "gs://recrawl-test/work"

	t.Run("WriteFileReadFile", func(t *testing.T) {
		p := Join(dir, "notes", "a.txt")
		if p != "gs://recrawl-test/work/notes/a.txt" {
			t.Fatalf("Join = %q", p)
		}
		if err := WriteFile(ctx, p, []byte("hello gs\n")); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "hello gs\n" {
			t.Errorf("ReadFile = %q", got)
		}
		if n, err := Size(ctx, p); err != nil || n != 9 {
			t.Errorf("Size = %d, %v; want 9", n, err)
		}
	})

	t.Run("CreateIsAtomic", func(t *testing.T) {
		p := Join(dir, "atomic.txt")
		w, err := Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("part one, ")); err != nil {
			t.Fatal(err)
		}
		if ok, err := Exists(ctx, p); err != nil || ok {
			t.Errorf("before Close: Exists = %v, %v; want false (no half objects)", ok, err)
		}
		w.Write([]byte("part two"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadFile(ctx, p); err != nil || string(got) != "part one, part two" {
			t.Errorf("after Close: %q, %v", got, err)
		}

		aborted := Join(dir, "aborted.txt")
		w, err = Create(ctx, aborted)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("never"))
		w.Abort()
		if ok, err := Exists(ctx, aborted); err != nil || ok {
			t.Errorf("after Abort: Exists = %v, %v; want false", ok, err)
		}
	})

	t.Run("GlobExpand", func(t *testing.T) {
		for _, n := range []string{"b.warc.gz", "a.warc.gz", "c.arc", "sub/d.warc.gz", "notes.txt"} {
			if err := WriteFile(ctx, Join(dir, "archives", n), []byte(n)); err != nil {
				t.Fatal(err)
			}
		}
		arch := Join(dir, "archives")
		got, err := Glob(ctx, arch+"/*.warc.gz")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{arch + "/a.warc.gz", arch + "/b.warc.gz"} // '*' does not cross '/'
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Glob = %v, want %v", got, want)
		}
		if got, err := Glob(ctx, arch+"/c.arc"); err != nil || !reflect.DeepEqual(got, []string{arch + "/c.arc"}) {
			t.Errorf("Glob of one name = %v, %v", got, err)
		}
		got, err = Expand(ctx, arch+"/*.warc.gz, "+arch+"/c.arc,"+arch+"/a.warc.gz,"+arch+"/sub/*")
		if err != nil {
			t.Fatal(err)
		}
		want = []string{arch + "/a.warc.gz", arch + "/b.warc.gz", arch + "/c.arc", arch + "/sub/d.warc.gz"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Expand = %v, want %v", got, want)
		}
		if _, err := Expand(ctx, arch+"/*.cdx"); err == nil || !strings.Contains(err.Error(), arch+"/*.cdx") {
			t.Errorf("a gs:// pattern matching nothing must be an error naming it, got %v", err)
		}
	})

	t.Run("MissingAndRemove", func(t *testing.T) {
		p := Join(dir, "gone.txt")
		if ok, err := Exists(ctx, p); err != nil || ok {
			t.Errorf("Exists(missing) = %v, %v", ok, err)
		}
		if _, err := Size(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Size(missing) error = %v, want fs.ErrNotExist", err)
		}
		if _, err := Open(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(missing) error = %v, want fs.ErrNotExist", err)
		}
		if err := WriteFile(ctx, p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if ok, err := Exists(ctx, p); err != nil || !ok {
			t.Errorf("Exists = %v, %v; want true", ok, err)
		}
		if err := Remove(ctx, p); err != nil {
			t.Fatal(err)
		}
		if ok, err := Exists(ctx, p); err != nil || ok {
			t.Errorf("after Remove: Exists = %v, %v", ok, err)
		}
		if err := Remove(ctx, p); err != nil {
			t.Errorf("Remove(missing) = %v, want nil", err)
		}
		if _, err := Size(ctx, "gs:///x"); err == nil {
			t.Error("a gs:// URI without bucket must be an error")
		}
	})

	t.Run("RangedReads", func(t *testing.T) {
		data := make([]byte, 5<<20)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		p := Join(dir, "big.warc.gz")
		if err := WriteFile(ctx, p, data); err != nil {
			t.Fatal(err)
		}
		ra, err := OpenReaderAt(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer ra.Close()
		if ra.Size() != int64(len(data)) {
			t.Errorf("Size = %d, want %d", ra.Size(), len(data))
		}

		before := proxy.Downloaded()
		buf := make([]byte, 1024)
		const off = 3_000_017
		n, err := ra.ReadAt(buf, off)
		if err != nil || n != len(buf) {
			t.Fatalf("ReadAt = %d, %v", n, err)
		}
		if !bytes.Equal(buf, data[off:off+1024]) {
			t.Error("ReadAt returned the wrong bytes")
		}
		if got := ra.BytesRead(); got != 1024 {
			t.Errorf("BytesRead = %d, want 1024", got)
		}
		// What crossed the network: the 1 KB and HTTP headers, not 5 MB. The
		// connection stays open (keep-alive), so wait for the proxy's count.
		var wire int64
		for deadline := time.Now().Add(2 * time.Second); ; {
			wire = proxy.Downloaded() - before
			if wire >= 1024 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("ranged read of 1 KB at offset %d of a 5 MB object: %d bytes on the wire", off, wire)
		if wire < 1024 || wire > 16<<10 {
			t.Errorf("%d bytes came over the network for a 1 KB ranged read of a 5 MB object; want 1 KB plus headers", wire)
		}

		// The tail: a short read ends with io.EOF.
		n, err = ra.ReadAt(buf, int64(len(data))-100)
		if n != 100 || err != io.EOF || !bytes.Equal(buf[:100], data[len(data)-100:]) {
			t.Errorf("ReadAt at the tail = %d, %v; want 100, io.EOF", n, err)
		}
		if n, err := ra.ReadAt(buf, int64(len(data))); n != 0 || err != io.EOF {
			t.Errorf("ReadAt past the end = %d, %v; want 0, io.EOF", n, err)
		}
		if got := ra.BytesRead(); got != 1124 {
			t.Errorf("BytesRead = %d, want 1124", got)
		}

		// Streaming the whole object still works and reads all of it.
		all, err := ReadFile(ctx, p)
		if err != nil || !bytes.Equal(all, data) {
			t.Errorf("ReadFile of the 5 MB object: %d bytes, %v", len(all), err)
		}
	})
}
