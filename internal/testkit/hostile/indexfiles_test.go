package hostile_test

// Hostile index files: ZipNum secondary indexes whose block lengths and
// blocks are out of bounds, a CDXJ index with a line longer than any index
// line, and index runs into a folder that holds another run's files or a
// folder of the user's.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/testkit/hostile"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// indexFiles runs every kind of hostile index file.
func indexFiles(t *testing.T, tl *tally, s *setup) {
	zipnumBlocks(t, tl)
	cdxjLongLines(t, tl)
	staleIndexFiles(t, tl, s)
	userTempFolders(t, tl, s)
}

// maxBlockAlloc is the most a read of one hostile block may allocate: the
// inflated block at its limit, the buffer's growth to it, and the member.
const maxBlockAlloc = 4 * zipnum.MaxBlockBytes

// zipnumBlocks reads ZipNum indexes whose cluster.idx gives a block a
// length that does not fit the shard (up to 2^63-1) or is longer than any
// block, and a block whose gzip member inflates to one 256 MiB line. Each
// read must end in an error naming the shard file, the cluster.idx line
// and the limit, without a panic and within maxBlockAlloc.
func zipnumBlocks(t *testing.T, tl *tally) {
	dir := filepath.Join(t.TempDir(), "zipnum")
	lines := []string{
		`com,example)/ 20100414120000 {"url": "http://example.com/", "status": "200", "offset": "0", "length": "100", "filename": "a.warc.gz"}`,
		`com,example)/b 20100414120000 {"url": "http://example.com/b", "status": "200", "offset": "100", "length": "100", "filename": "a.warc.gz"}`,
	}
	if err := zipnum.Build(dir, zipnum.Lines(lines), 0, 1); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(dir, zipnum.ShardName(0))
	st, err := os.Stat(shard)
	if err != nil {
		t.Fatal(err)
	}
	// A block inflating to one 256 MiB line, appended to the shard.
	bombAt := st.Size()
	f, err := os.OpenFile(shard, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = hostile.GzipMember(f, []byte("com,example)/c 20100414120000 "), 256<<20, []byte("\n"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	st, _ = os.Stat(shard)
	bombLen := st.Size() - bombAt
	// A shard longer than any block (sparse: nothing is written).
	bigShard := filepath.Join(dir, "big.gz")
	if f, err := os.Create(bigShard); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(zipnum.MaxCompressedBlockBytes + 1<<20)
		f.Close()
	}
	cases := []struct {
		name, entry string
		want        []string // in the error, with the shard file
	}{
		{"length-max-int64", "cdx-00000.gz\t0\t9223372036854775807", []string{shard, "past the end of the shard file"}},
		{"length-30-GiB", "cdx-00000.gz\t0\t32212254720", []string{shard, "past the end of the shard file"}},
		{"offset-past-end", fmt.Sprintf("cdx-00000.gz\t%d\t10", st.Size()+1), []string{shard, "past the end of the shard file"}},
		{"length-over-block-limit", fmt.Sprintf("big.gz\t0\t%d", zipnum.MaxCompressedBlockBytes+1), []string{bigShard, fmt.Sprint(zipnum.MaxCompressedBlockBytes)}},
		{"inflates-to-256-MiB", fmt.Sprintf("cdx-00000.gz\t%d\t%d", bombAt, bombLen), []string{shard, fmt.Sprint(zipnum.MaxBlockBytes)}},
	}
	built, err := os.ReadFile(filepath.Join(dir, "cluster.idx"))
	if err != nil {
		t.Fatal(err)
	}
	firstBlock, _, _ := strings.Cut(string(built), "\n")
	for _, c := range cases {
		tl.tried("zipnum-block-" + c.name)
		idx := filepath.Join(dir, c.name+".idx")
		// The hostile block is the second line: the error must name it.
		data := firstBlock + "\ncom,example)/c 20100414120000\t" + c.entry + "\t2\n"
		if err := os.WriteFile(idx, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtimeMem
		before.read()
		err, panicked := readZipNumBlock(idx, 1)
		after.read()
		switch {
		case panicked != nil:
			tl.problem(&tl.crashes, "zipnum %s: panic: %v", c.name, panicked)
			continue
		case err == nil:
			tl.problem(&tl.unexpected, "zipnum %s: the block was read without an error", c.name)
			continue
		}
		want := append([]string{idx + " line 2", "com,example)/c"}, c.want...)
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				tl.problem(&tl.unexpected, "zipnum %s: the error does not say %q: %v", c.name, w, err)
			}
		}
		if alloc := after.total - before.total; alloc > maxBlockAlloc {
			tl.problem(&tl.unexpected, "zipnum %s: reading the block allocated %d MiB (limit %d MiB)", c.name, alloc>>20, maxBlockAlloc>>20)
		}
	}
}

// readZipNumBlock opens the index and reads block n, a panic returned.
func readZipNumBlock(idx string, n int) (err error, panicked any) {
	defer func() { panicked = recover() }()
	r, err := zipnum.Open(idx, zipnum.Options{CacheBytes: -1})
	if err != nil {
		return err, nil
	}
	defer r.Close()
	if r.Blocks() <= n {
		return errors.New("the index has too few blocks"), nil
	}
	for _, err := range r.Range("com,example)/c", "") {
		if err != nil {
			return err, nil
		}
	}
	return nil, nil
}

// cdxjLongLines opens CDXJ indexes holding one line 1 MiB longer than
// zipnum.MaxLineBytes (first, in the middle, last without a newline), on
// disk and in memory: each must be an error naming the file, the line's
// offset and the limit, found by scanning the line once.
func cdxjLongLines(t *testing.T, tl *tally) {
	dir := filepath.Join(t.TempDir(), "cdxj")
	os.MkdirAll(dir, 0o755)
	short := func(i int) string {
		return fmt.Sprintf(`com,example)/a%04d 20100414120000 {"url": "http://example.com/a%04d", "filename": "a.warc.gz", "offset": "%d", "length": "10"}`+"\n", i, i, i)
	}
	long := `com,example)/b 20100414120000 {"url": "http://example.com/b", "pad": "` + strings.Repeat("p", zipnum.MaxLineBytes+1<<20) + `"}`
	after := `com,example)/c 20100414120000 {"url": "http://example.com/c"}` + "\n"
	var before strings.Builder
	for i := range 2000 {
		before.WriteString(short(i))
	}
	cases := []struct {
		name  string
		parts []string // the file; the long line is parts[1]
	}{
		{"first", []string{"", long + "\n", after}},
		{"middle", []string{before.String(), long + "\n", after}},
		{"last-without-newline", []string{before.String(), long, ""}},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".cdxj")
		if err := os.WriteFile(p, []byte(strings.Join(c.parts, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			opts lookup.CDXJOptions
		}{{"on-disk", lookup.CDXJOptions{MemoryThreshold: -1}}, {"in-memory", lookup.CDXJOptions{MemoryThreshold: 64 << 20}}} {
			name := "cdxj-long-line-" + c.name + "-" + mode.name
			tl.tried(name)
			idx, err := lookup.OpenCDXJ(p, mode.opts)
			if err == nil {
				idx.Close()
				tl.problem(&tl.unexpected, "%s: a line of %d bytes was accepted", name, len(long))
				continue
			}
			for _, w := range []string{p, fmt.Sprintf("byte %d", len(c.parts[0])), fmt.Sprint(zipnum.MaxLineBytes)} {
				if !strings.Contains(err.Error(), w) {
					tl.problem(&tl.unexpected, "%s: the error does not say %q: %v", name, w, err)
				}
			}
		}
	}
}

// staleIndexFiles runs index --format=zipnum --dictionary with two shards
// into a folder, then index --format=zipnum without --dictionary over one
// archive file into the same folder: the second run removes what the
// first wrote and it did not (the df-*.tsv files, the second shard) and
// leaves a file of the user's, and the extraction's dictionaries of the
// folder are then none. A df file copied into the folder afterwards is
// not the run's: reading the folder's dictionaries is an error naming it.
func staleIndexFiles(t *testing.T, tl *tally, s *setup) {
	ctx := context.Background()
	out := filepath.Join(s.root, "stale-index")
	tl.tried("index-rerun-without-dictionary")
	first := s.exec(tl, s.index, 0, "--input", strings.Join(s.a.WARCs, ","), "--output", out, "--format=zipnum", "--shards=2", "--dictionary")
	if first.err != nil {
		tl.problem(&tl.unexpected, "index --dictionary into %s: %v\n%s", out, first.err, tail(first.stderr))
		return
	}
	dfs, _ := filepath.Glob(filepath.Join(out, "df-*.tsv"))
	if len(dfs) == 0 {
		tl.problem(&tl.unexpected, "index --dictionary wrote no df-*.tsv into %s", out)
		return
	}
	if d, err := extract.DictionariesIn(ctx, out); err != nil || len(d) != len(dfs) {
		tl.problem(&tl.unexpected, "the dictionaries the index run wrote: %v, %v; want its %d df files", d, err, len(dfs))
	}
	dfData, err := os.ReadFile(dfs[0])
	if err != nil {
		t.Fatal(err)
	}
	userFile := filepath.Join(out, "notes.txt")
	os.WriteFile(userFile, []byte("the user's\n"), 0o644)
	second := s.exec(tl, s.index, 0, "--input", s.a.WARCs[0], "--output", out, "--format=zipnum", "--shards=1")
	if second.err != nil {
		tl.problem(&tl.unexpected, "index without --dictionary into %s: %v\n%s", out, second.err, tail(second.stderr))
		return
	}
	for _, stale := range append(dfs, filepath.Join(out, zipnum.ShardName(1))) {
		if _, err := os.Stat(stale); err == nil {
			tl.problem(&tl.unexpected, "%s of the first index run is still in %s after the second", filepath.Base(stale), out)
		}
	}
	if _, err := os.Stat(userFile); err != nil {
		tl.problem(&tl.unexpected, "the index run removed %s, a file no index run wrote: %v", userFile, err)
	}
	if d, err := extract.DictionariesIn(ctx, out); err != nil || len(d) != 0 {
		tl.problem(&tl.unexpected, "dictionaries of %s after a run without --dictionary: %v, %v; want none", out, d, err)
	}
	tl.tried("df-file-not-in-manifest")
	foreign := filepath.Join(out, filepath.Base(dfs[0]))
	if err := os.WriteFile(foreign, dfData, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := extract.DictionariesIn(ctx, out)
	if err == nil || !strings.Contains(err.Error(), foreign) || !strings.Contains(err.Error(), "index.manifest") {
		tl.problem(&tl.unexpected, "a df file no index run into %s listed was read: %v, %v; want an error naming it and the manifest", out, d, err)
	}
}

// userTempFolders runs index into a folder that holds folders of the
// user's named like the pipeline's temporary ones (.runs, .parts): they
// and their files stay, and the run leaves no temporary folder of its own.
func userTempFolders(t *testing.T, tl *tally, s *setup) {
	out := filepath.Join(s.root, "user-folders")
	var kept []string
	for _, d := range []string{".runs", ".parts"} {
		p := filepath.Join(out, d, "keep.txt")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p)
	}
	for _, format := range []string{"cdxj", "zipnum"} {
		tl.tried("index-output-with-user-runs-folder-" + format)
		r := s.exec(tl, s.index, 0, "--input", strings.Join(s.a.WARCs, ","), "--output", out, "--format="+format, "--shards=2")
		if r.err != nil {
			tl.problem(&tl.unexpected, "index --format=%s into %s: %v\n%s", format, out, r.err, tail(r.stderr))
			continue
		}
		for _, p := range kept {
			if _, err := os.Stat(p); err != nil {
				tl.problem(&tl.unexpected, "index --format=%s removed %s, the user's: %v", format, p, err)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(out, ".runs-*")); len(left) > 0 {
			tl.problem(&tl.unexpected, "index --format=%s left its temporary folder %v", format, left)
		}
	}
}
