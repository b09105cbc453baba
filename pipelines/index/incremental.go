package index

// An index that grows night by night: `recrawl index --add` indexes only the
// --input files the index does not hold yet, as a new sorted segment in
// OUTPUT/segments/NNNNNN/ (the layout of a full build), and records every
// file in OUTPUT/index.files (lookup.FileListFile) once the segment is
// complete; `recrawl index remove` marks files removed; `recrawl index
// compact` merges the base and the segments into one index, byte-identical
// to a full build of the files held. Each holds OUTPUT's lock, and each
// changes what look-ups read only through index.files: --add and remove
// append lines to it (a line cut short by a crash is ignored, then cut off),
// compact replaces it atomically, so a run killed halfway leaves the index
// as it was; the next run removes what it left.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/cli"
	iindex "github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/worklock"
	"github.com/recrawl/recrawl/internal/zipnum"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/transforms/index"
)

// fileListHeader is the header of index.files for an index built with cfg.
func fileListHeader(cfg Config) lookup.FileListHeader {
	h := lookup.FileListHeader{Version: lookup.FileListVersion, Format: cfg.Format, Shards: cfg.Shards,
		LinesPerBlock: cfg.LinesPerBlock, Dictionary: cfg.Dictionary}
	if cfg.Dictionary {
		h.DictionaryMinDF, h.DictionarySample, h.DefaultLanguage = cfg.DictionaryMinDF, cfg.DictionarySample, cfg.DefaultLanguage
	}
	return h
}

// checkSameSettings refuses to add to an index built with other settings:
// its parts must be those of one full build.
func checkSameSettings(dir string, have, want lookup.FileListHeader) error {
	if have == want {
		return nil
	}
	return fmt.Errorf("--output %s: the index was built with %+v (%s), this run asks for %+v: use the same --format, --shards, --lines_per_block and --dictionary flags",
		dir, have, lookup.FileListFile, want)
}

// AddResult is what one `index --add` did.
type AddResult struct {
	Segment string   // the segment written; "" for the base or nothing
	Added   []string // the files indexed
	Skipped []string // the files the index already held
	Summary *Summary // of the pipeline run, nil when nothing was added
}

// Add runs `index --add`: it indexes the files of cfg.Files that the index
// in cfg.OutputDir does not hold, as a new segment, or as the base when the
// folder holds no index, and records them in index.files once the part is
// complete. A file the index holds (same name, size and first and last
// blocks) is skipped; another file under a name the index holds is an
// error naming it.
func Add(ctx context.Context, cfg Config) (*AddResult, error) {
	dir := cfg.OutputDir
	if dir == "" {
		return nil, errors.New("--add needs --output: the index keeps its list of files there")
	}
	if cfg.Bigtable != "" {
		return nil, errors.New("--add with --bigtable: the files of a Bigtable index are kept in its table, not here; run --add without --bigtable")
	}
	if err := checkUniqueNames(cfg.Files); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	release, err := worklock.Hold(ctx, os.Stderr, dir)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	defer release()
	cfg.lockHeld = true
	cfg.DocFreqCounts = true
	list, err := lookup.ReadFileList(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	header := fileListHeader(cfg)
	if list == nil {
		if m, err := lookup.ReadManifest(ctx, dir); err == nil && m != nil && m.Complete {
			return nil, fmt.Errorf("--output %s: holds an index built without --add, whose files are not recorded (%s): build it again with --add", dir, lookup.FileListFile)
		}
		// An empty list first: a night-1 run killed after its manifest
		// but before its list is not taken for an index built without
		// --add by the next run, which builds the base again.
		list = &lookup.FileList{Header: header}
		if err := lookup.WriteFileList(ctx, dir, list); err != nil {
			return nil, err
		}
	} else if err := checkSameSettings(dir, list.Header, header); err != nil {
		return nil, err
	}
	if err := removeUnlistedSegments(ctx, dir, list); err != nil {
		return nil, err
	}
	var minLevel int // the sample level the night's dictionary counts from
	if len(list.Files) > 0 {
		if minLevel, err = checkDictionarySample(ctx, dir, cfg); err != nil {
			return nil, err
		}
	}
	res := &AddResult{}
	var added []lookup.IndexedFile
	var conflicts []error
	ids, err := iindex.IdentifyFiles(ctx, cfg.Files)
	if err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	for i, f := range cfg.Files {
		id := lookup.FileIdentity{Name: ids[i].Name, Size: ids[i].Size, HeadSHA256: ids[i].Head, TailSHA256: ids[i].Tail}
		if held, ok := list.Held(id.Name); ok {
			if held.Identity() == id {
				slog.Info("the index holds this file already: skipped", "file", f, "size", id.Size)
				res.Skipped = append(res.Skipped, f)
				continue
			}
			conflicts = append(conflicts, fmt.Errorf("%s: the index holds another file named %q (%d bytes, indexed from %s); to replace it, run recrawl index remove --output=%s %s first",
				f, id.Name, held.Size, held.Path, dir, id.Name))
			continue
		}
		added = append(added, lookup.IndexedFile{Name: id.Name, Path: f, Size: id.Size, HeadSHA256: id.HeadSHA256, TailSHA256: id.TailSHA256})
		res.Added = append(res.Added, f)
	}
	if err := errors.Join(conflicts...); err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	if len(added) == 0 {
		return res, nil
	}
	if len(list.Files) > 0 {
		res.Segment = nextSegment(list)
	}
	part := cfg
	part.Files = res.Added
	part.DictionaryMinLevel = minLevel
	part.OutputDir = lookup.SegmentDir(dir, res.Segment)
	part.TempDir = ""
	sum, err := Run(ctx, part)
	res.Summary = sum
	if err != nil {
		if res.Segment != "" { // not listed: no reader uses it
			if rerr := storage.RemoveAll(context.WithoutCancel(ctx), part.OutputDir); rerr != nil {
				slog.Warn("the segment of the failed run could not be removed; the next run removes it", "dir", part.OutputDir, "err", rerr)
			}
		}
		return res, err
	}
	for i := range added {
		added[i].Segment = res.Segment
	}
	if err := lookup.AppendFiles(ctx, dir, list, added); err != nil {
		return res, err
	}
	return res, nil
}

// checkDictionarySample reads the dictionary sample of the index in dir
// (the parts' samples summed) once. It refuses an index whose dictionary
// was counted with another --dictionary_docs (the parts' counts add up only
// under one bound), and returns the index's sample level: the captures
// can only raise it, so a night's documents below it would never be
// counted. Without --dictionary it reads nothing and returns 0.
func checkDictionarySample(ctx context.Context, dir string, cfg Config) (level int, err error) {
	if !cfg.Dictionary {
		return 0, nil
	}
	sample, _, err := lookup.SumDictionarySamples(ctx, dir)
	if err != nil {
		return 0, fmt.Errorf("--output: %w", err)
	}
	if sample.MaxDocs != cfg.DictionaryDocs {
		return 0, fmt.Errorf("--output %s: the index's dictionary was counted with --dictionary_docs=%d (%s), this run asks for %d: use the same flag",
			dir, sample.MaxDocs, iindex.DictionarySampleFile, cfg.DictionaryDocs)
	}
	return sample.Level(), nil
}

// indexDictionaryDocs returns the --dictionary_docs the dictionary of the
// segmented index in dir was counted with (0 for parts that record no
// sample: every document). It reads the parts' samples only, not their
// counts, which grow with every night.
func indexDictionaryDocs(ctx context.Context, dir string) (int64, error) {
	sample, _, err := lookup.SumDictionarySamples(ctx, dir)
	if err != nil {
		return 0, err
	}
	return sample.MaxDocs, nil
}

// nextSegment names the segment after the last one the list names.
func nextSegment(list *lookup.FileList) string {
	n := 0
	for _, s := range list.Segments() {
		if v, err := strconv.Atoi(s); err == nil && v > n {
			n = v
		}
	}
	return lookup.SegmentName(n + 1)
}

// removeUnlistedSegments removes the folders of dir/segments that the list
// does not name: those of runs killed before they could list them.
func removeUnlistedSegments(ctx context.Context, dir string, list *lookup.FileList) error {
	listed := list.Segments()
	found, err := storage.Glob(ctx, storage.Join(dir, lookup.SegmentsDir, "*", lookup.ManifestFile))
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if !storage.IsGCS(dir) { // a segment killed before its manifest: a folder only
		if entries, err := os.ReadDir(storage.Join(dir, lookup.SegmentsDir)); err == nil {
			for _, e := range entries {
				found = append(found, storage.Join(dir, lookup.SegmentsDir, e.Name(), lookup.ManifestFile))
			}
		}
	}
	slices.Sort(found)
	for _, m := range slices.Compact(found) {
		seg := storage.Dir(m)
		name := storage.Base(seg)
		if slices.Contains(listed, name) {
			continue
		}
		if err := storage.RemoveAll(ctx, seg); err != nil {
			return fmt.Errorf("--output: the segment of a run that did not finish: %w", err)
		}
		slog.Info("removed the segment of an index run that did not finish", "dir", seg)
	}
	return nil
}

// Remove runs `index remove`: it marks the files of those names removed in
// dir's index.files, so look-ups leave their captures out at once; the
// next compaction drops them from the files. A name the index does not
// hold is an error naming it, and nothing is changed.
func Remove(ctx context.Context, dir string, names []string) error {
	if len(names) == 0 {
		return errors.New("recrawl index remove: name the files to remove (base names, as index.files lists them)")
	}
	release, err := worklock.Hold(ctx, os.Stderr, dir)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	defer release()
	list, err := lookup.ReadFileList(ctx, dir)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if list == nil {
		return fmt.Errorf("--output %s: no %s: only an index built with --add records its files", dir, lookup.FileListFile)
	}
	var unknown []string
	for _, name := range names {
		if _, ok := list.Held(name); !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("--output %s: the index holds no file named %q (see %s)", dir, unknown, lookup.FileListFile)
	}
	var tombstones []lookup.IndexedFile
	for _, f := range list.Files {
		if !f.Removed && slices.Contains(names, f.Name) {
			f.Removed = true
			tombstones = append(tombstones, f)
		}
	}
	return lookup.AppendFiles(ctx, dir, list, tombstones)
}

// Compact runs `index compact`: it merges the base and the segments of the
// index in dir, without the captures of removed files, into one index
// byte-identical to a full build of the files it holds, and makes it the
// base. The merged index is written as a new segment first and listed
// alone, then moved into the folder and listed as the base: a compaction
// killed at any point leaves an index that look-ups read whole, and the
// next compaction finishes the work. The document frequencies are the sums
// of the parts' counts; when files were removed they are counted again
// from the archive files the index holds (index.files names where they
// were indexed from), which must then be readable. It returns false when
// there was nothing to compact.
func Compact(ctx context.Context, dir string, rc *runners.Config) (bool, error) {
	release, err := worklock.Hold(ctx, os.Stderr, dir)
	if err != nil {
		return false, fmt.Errorf("--output: %w", err)
	}
	defer release()
	list, err := lookup.ReadFileList(ctx, dir)
	if err != nil {
		return false, fmt.Errorf("--output: %w", err)
	}
	if list == nil {
		return false, fmt.Errorf("--output %s: no %s: only an index built with --add has segments to compact", dir, lookup.FileListFile)
	}
	if err := removeUnlistedSegments(ctx, dir, list); err != nil {
		return false, err
	}
	removed := slices.ContainsFunc(list.Files, func(f lookup.IndexedFile) bool { return f.Removed })
	if list.HasBase() && len(list.Segments()) == 0 && !removed {
		return false, nil
	}
	var held []lookup.IndexedFile
	for _, f := range list.Files {
		if !f.Removed {
			held = append(held, f)
		}
	}
	if len(held) == 0 {
		return false, fmt.Errorf("--output %s: every file of the index is removed: nothing would be left (remove the folder instead)", dir)
	}
	h := list.Header
	cfg := Config{OutputDir: lookup.SegmentDir(dir, nextSegment(list)), Format: h.Format, Shards: h.Shards, LinesPerBlock: h.LinesPerBlock,
		Dictionary: h.Dictionary, DictionaryMinDF: h.DictionaryMinDF, DictionarySample: h.DictionarySample, DefaultLanguage: h.DefaultLanguage,
		DocFreqCounts: true, Runner: rc, lockHeld: true}
	seg := storage.Base(cfg.OutputDir)
	if h.Dictionary {
		if cfg.DictionaryDocs, err = indexDictionaryDocs(ctx, dir); err != nil {
			return false, fmt.Errorf("--output: %w", err)
		}
	}
	if h.Dictionary && removed {
		err = recountFromArchives(ctx, cfg, held)
	} else {
		err = mergeParts(ctx, cfg, dir, list)
	}
	if err != nil {
		storage.RemoveAll(context.WithoutCancel(ctx), cfg.OutputDir)
		return false, err
	}
	// The merged index alone: look-ups read it, not the base.
	merged := &lookup.FileList{Header: h}
	for _, f := range held {
		f.Segment = seg
		merged.Files = append(merged.Files, f)
	}
	if err := lookup.WriteFileList(ctx, dir, merged); err != nil {
		return false, err
	}
	if err := moveIntoBase(ctx, dir, cfg.OutputDir); err != nil {
		return false, err
	}
	for i := range merged.Files {
		merged.Files[i].Segment = ""
	}
	if err := lookup.WriteFileList(ctx, dir, merged); err != nil {
		return false, err
	}
	if err := storage.RemoveAll(ctx, storage.Join(dir, lookup.SegmentsDir)); err != nil {
		return true, fmt.Errorf("--output: the merged segments: %w", err)
	}
	return true, nil
}

// recountFromArchives builds the compacted index as a full build of the
// archive files held, from where they were indexed: the document
// frequencies of removed files cannot be taken out of the sums.
func recountFromArchives(ctx context.Context, cfg Config, held []lookup.IndexedFile) error {
	var missing []string
	for _, f := range held {
		id, err := lookup.IdentifyFile(ctx, f.Path)
		if err != nil || id != f.Identity() {
			missing = append(missing, f.Path)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("compact: files were removed, so the document frequencies are counted again from the archive files, but these are missing or changed: %v", missing)
	}
	for _, f := range held {
		cfg.Files = append(cfg.Files, f.Path)
	}
	_, err := Run(ctx, cfg)
	return err
}

// mergeParts writes the lines of every part of the index in dir, without
// those of removed files, merged into one sorted run, and builds the index
// in cfg.OutputDir from it with the writers of a full build (the same
// shard boundaries: the sample is that of the same lines); the document
// frequencies are the parts' counts summed.
func mergeParts(ctx context.Context, cfg Config, dir string, list *lookup.FileList) error {
	parts, err := lookup.IndexParts(ctx, lookup.Spec{Kind: cfg.Format, Location: specLocation(dir, cfg.Format)})
	if err != nil {
		return err
	}
	tempName, err := newTempDirName(ctx, cfg.OutputDir)
	if err != nil {
		return err
	}
	if err := claimOutput(ctx, cfg.OutputDir, tempName); err != nil {
		return err
	}
	tmp, err := makeTempDir(ctx, cfg.OutputDir, tempName)
	if err != nil {
		return err
	}
	defer storage.RemoveAll(context.WithoutCancel(ctx), tmp)
	k := cfg.Shards * index.SamplesPerShard
	var sample iindex.Sample
	run, err := iindex.WriteSortedRun(ctx, storage.Join(tmp, "merged.run"), func(add func([]byte) error) error {
		return mergePartLines(ctx, parts, func(l []byte) error {
			sample.AddBytes(l, k)
			return add(l)
		})
	})
	if err != nil {
		return err
	}
	if run.Lines == 0 {
		return fmt.Errorf("compact %s: the files held have no captures", dir)
	}
	var dfPaths []string
	if cfg.Dictionary {
		if dfPaths, err = writeSummedDocFreqs(ctx, dir, cfg.OutputDir); err != nil {
			return err
		}
	}
	p, s := beam.NewPipelineWithRoot()
	shards := index.SortIntoShards(s, beam.Create(s, index.SortedRun{Run: run, Sample: sample}), cfg.Shards)
	var written []beam.PCollection
	if cfg.Format == "zipnum" {
		written = append(written, index.WriteZipNum(s, shards, cfg.OutputDir, tmp, cfg.LinesPerBlock))
	} else {
		written = append(written, index.WriteCDXJ(s, shards, cfg.OutputDir, tmp))
	}
	if len(dfPaths) > 0 {
		written = append(written, beam.CreateList(s, dfPaths))
	}
	index.WriteIndexManifest(s, cfg.OutputDir, written...)
	rc := cfg.Runner
	if rc == nil {
		c, err := runners.FromFlags()
		if err != nil {
			return err
		}
		defer c.Close()
		rc = &c
	}
	if _, err := rc.Run(ctx, p); err != nil {
		return fmt.Errorf("compact pipeline: %w", err)
	}
	if m, err := lookup.ReadManifest(ctx, cfg.OutputDir); err != nil || m == nil || !m.Complete {
		return fmt.Errorf("compact %s: the pipeline ended without writing a complete %s (%v)", cfg.OutputDir, lookup.ManifestFile, err)
	}
	return nil
}

// specLocation is the location of the index in dir in an index spec.
func specLocation(dir, format string) string {
	if format == lookup.KindCDXJ {
		return storage.Join(dir, lookup.CDXJFileName)
	}
	return dir
}

// writeSummedDocFreqs writes, into out, df-LANG.tsv, dfcounts-LANG.tsv
// and dfsample.tsv of the parts of the index in dir summed, and returns
// their paths.
func writeSummedDocFreqs(ctx context.Context, dir, out string) ([]string, error) {
	sums, err := lookup.SumDocFreqs(ctx, dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	if sums.Sampled {
		files[iindex.DictionarySampleFile] = sums.SampleFile()
	}
	for lang := range sums.Langs {
		if files[scoring.DocFreqFileName(lang)], err = sums.DictionaryFile(lang); err != nil {
			return nil, err
		}
		if files[lookup.DocFreqCountsFileName(lang)], err = sums.CountsFile(lang); err != nil {
			return nil, err
		}
	}
	var paths []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := storage.Join(out, name)
		if err := storage.WriteFile(ctx, p, files[name]); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// mergePartLines calls fn with the lines of every part in sort order,
// leaving out those of files removed from their part.
func mergePartLines(ctx context.Context, parts []lookup.Part, fn func([]byte) error) error {
	var cursors []*partCursor
	defer func() {
		for _, c := range cursors {
			c.close()
		}
	}()
	for _, p := range parts {
		c, err := openPartCursor(ctx, p)
		if err != nil {
			return err
		}
		cursors = append(cursors, c)
		if err := c.advance(); err != nil {
			return err
		}
	}
	for {
		var min *partCursor
		for _, c := range cursors {
			if c.ok && (min == nil || bytes.Compare(c.line, min.line) < 0) {
				min = c
			}
		}
		if min == nil {
			return nil
		}
		if err := fn(min.line); err != nil {
			return err
		}
		if err := min.advance(); err != nil {
			return err
		}
	}
}

// partCursor reads the lines of one part of an index in order.
type partCursor struct {
	part  lookup.Part
	next  func() ([]byte, bool, error)
	close func()
	line  []byte
	ok    bool
}

func openPartCursor(ctx context.Context, p lookup.Part) (*partCursor, error) {
	c := &partCursor{part: p}
	if p.Spec.Kind == lookup.KindZipNum {
		// Read once, in order: no block is read twice, so none is
		// cached, and the merge holds one block per part.
		zr, err := zipnum.OpenContext(ctx, p.Spec.Location, zipnum.Options{CacheBytes: -1})
		if err != nil {
			return nil, fmt.Errorf("index part %s: %w", p.Spec, err)
		}
		next, stop := iter.Pull2(zr.Range("", "\xff"))
		c.next = func() ([]byte, bool, error) {
			l, err, ok := next()
			if err != nil {
				return nil, false, fmt.Errorf("index part %s: %w", p.Spec, err)
			}
			return []byte(l), ok, nil
		}
		c.close = func() { stop(); zr.Close() }
		return c, nil
	}
	r, err := storage.Open(ctx, p.Spec.Location)
	if err != nil {
		return nil, fmt.Errorf("index part %s: %w", p.Spec, err)
	}
	br := bufio.NewReaderSize(r, 1<<20)
	c.next = func() ([]byte, bool, error) {
		l, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(l) == 0 {
			return nil, false, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, fmt.Errorf("index part %s: %w", p.Spec, err)
		}
		return bytes.TrimSuffix(l, []byte{'\n'}), true, nil
	}
	c.close = func() { r.Close() }
	return c, nil
}

// advance moves to the next line of the part that is not of a removed file.
func (c *partCursor) advance() error {
	for {
		l, ok, err := c.next()
		if err != nil || !ok {
			c.ok = false
			return err
		}
		if len(c.part.Removed) > 0 {
			capture, err := zipnum.ParseLine(string(l))
			if err != nil {
				return fmt.Errorf("index part %s: %w", c.part.Spec, err)
			}
			if c.part.Drops(capture.Filename) {
				continue
			}
		}
		c.line, c.ok = l, true
		return nil
	}
}

// moveIntoBase makes the index in seg (a complete index run) the index of
// dir: dir's manifest says incomplete while its earlier files are removed
// and seg's files moved in, then lists them.
func moveIntoBase(ctx context.Context, dir, seg string) error {
	m, err := lookup.ReadManifest(ctx, seg)
	if err != nil || m == nil || !m.Complete {
		return fmt.Errorf("compact: %s holds no complete index (%v)", seg, err)
	}
	if err := claimOutput(ctx, dir, ""); err != nil {
		return err
	}
	for _, name := range m.Files {
		if err := moveFile(ctx, storage.Join(seg, name), storage.Join(dir, name)); err != nil {
			return fmt.Errorf("compact: %w", err)
		}
	}
	return lookup.WriteManifest(ctx, dir, lookup.Manifest{Complete: true, Files: m.Files})
}

// moveFile renames a local file; a gs:// object is copied, then removed.
func moveFile(ctx context.Context, from, to string) error {
	if !storage.IsGCS(from) {
		return os.Rename(from, to)
	}
	r, err := storage.Open(ctx, from)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := storage.Create(ctx, to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Abort()
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	return storage.Remove(ctx, from)
}

// runAdd is `recrawl index --add`: it prints what it did.
func runAdd(ctx context.Context, cfg Config) error {
	res, err := Add(ctx, cfg)
	if res != nil && res.Summary != nil {
		res.Summary.Print(os.Stdout)
	}
	if err != nil {
		return err
	}
	switch {
	case len(res.Added) == 0:
		fmt.Printf("nothing to add: the index in %s holds all %d files\n", cfg.OutputDir, len(res.Skipped))
	case res.Segment == "":
		fmt.Printf("added %d files to %s as its base (%d held already)\n", len(res.Added), cfg.OutputDir, len(res.Skipped))
	default:
		fmt.Printf("added %d files to %s as segment %s (%d held already)\n", len(res.Added), cfg.OutputDir, res.Segment, len(res.Skipped))
	}
	return nil
}

// runMaintenance is `recrawl index compact|remove`, on a folder (--output)
// or a Bigtable index (--bigtable): the index flags are parsed once, and
// the command takes no other index flag (the index keeps its settings).
func runMaintenance(ctx context.Context, command string) error {
	var other []string
	indexFlags.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "output", "bigtable", "verbose":
		default:
			if f.Value.String() != f.DefValue {
				other = append(other, "--"+f.Name)
			}
		}
	})
	switch {
	case (*output == "") == (*bigtableSpec == ""):
		return fmt.Errorf("%w: recrawl index %s: name the index with --output (a folder) or --bigtable (a table), one of them", cli.ErrUsage, command)
	case len(other) > 0:
		return fmt.Errorf("%w: recrawl index %s: takes --output or --bigtable only, not %s (the index keeps its settings: %s or the table)", cli.ErrUsage, command, strings.Join(other, ", "), lookup.FileListFile)
	case command == "remove" && flag.NArg() == 0:
		return fmt.Errorf("%w: recrawl index remove: name the archive files to remove (base names, as the index holds them)", cli.ErrUsage)
	case command == "compact":
		if err := cli.CheckNoArgs(flag.Args()); err != nil {
			return err
		}
	}
	if *bigtableSpec != "" {
		if _, _, _, err := index.ParseBigtableSpec(*bigtableSpec); err != nil {
			return fmt.Errorf("%w: %v", cli.ErrUsage, err)
		}
		if command == "remove" {
			return runRemoveBigtable(ctx, *bigtableSpec, flag.Args())
		}
		return runCompactBigtable(ctx, *bigtableSpec)
	}
	if command == "remove" {
		return runRemove(ctx, *output, flag.Args())
	}
	return runCompact(ctx, *output)
}

// runCompact is `recrawl index compact --output=DIR`.
func runCompact(ctx context.Context, dir string) error {
	rc, err := runners.FromFlags()
	if err != nil {
		return err
	}
	defer rc.Close()
	done, err := Compact(ctx, dir, &rc)
	if err != nil {
		return err
	}
	if !done {
		fmt.Printf("nothing to compact: the index in %s is one part\n", dir)
		return nil
	}
	fmt.Printf("compacted the index in %s into one part\n", dir)
	return nil
}

// runRemove is `recrawl index remove --output=DIR NAME...`.
func runRemove(ctx context.Context, dir string, names []string) error {
	if err := Remove(ctx, dir, names); err != nil {
		return err
	}
	fmt.Printf("removed %d files from the index in %s: look-ups leave their captures out; recrawl index compact drops them from its files\n", len(names), dir)
	return nil
}
