package lookup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// DocFreqCountsPrefix starts the name of the document-frequency counts an
// index built with --add keeps beside each part's df-LANG.tsv:
// dfcounts-LANG.tsv, the counts by sample level (WriteDocFreqLevels) with
// no term left out (no --dictionary_min_df), so that the parts' counts add
// up to those of one index of all the files, at the sample level of all
// the files, and are pruned after the sum.
const DocFreqCountsPrefix = "dfcounts-"

// DocFreqCountsFileName is the name of the counts file of a language.
func DocFreqCountsFileName(lang string) string {
	return DocFreqCountsPrefix + strings.TrimPrefix(scoring.DocFreqFileName(lang), "df-")
}

// segmentedDictionaryPrefix starts the path of the summed dictionary of a
// segmented index: "segments:DIR#LANG" (SegmentedDictionaryPath).
const segmentedDictionaryPrefix = "segments:"

// SegmentedDictionaryPath names the document frequencies of one language
// summed over the parts of the index in dir (ReadSegmentedDictionary).
func SegmentedDictionaryPath(dir, lang string) string {
	return segmentedDictionaryPrefix + dir + "#" + lang
}

// IsSegmentedDictionaryPath reports whether p is a SegmentedDictionaryPath.
func IsSegmentedDictionaryPath(p string) bool {
	return strings.HasPrefix(p, segmentedDictionaryPrefix) && strings.Contains(p, "#")
}

// ReadSegmentedDictionary returns the df-LANG.tsv content that one full
// build of the files of the index would have written, for the language a
// SegmentedDictionaryPath names.
func ReadSegmentedDictionary(ctx context.Context, p string) ([]byte, error) {
	rest := strings.TrimPrefix(p, segmentedDictionaryPrefix)
	i := strings.LastIndexByte(rest, '#')
	if i < 0 {
		return nil, fmt.Errorf("dictionary %q: want segments:DIR#LANG", p)
	}
	dir, lang := rest[:i], rest[i+1:]
	sums, err := SumDocFreqs(ctx, dir)
	if err != nil {
		return nil, err
	}
	if _, ok := sums.Langs[lang]; !ok {
		return nil, fmt.Errorf("dictionary %q: the index in %s has no document frequencies of %q", p, dir, lang)
	}
	return sums.DictionaryFile(lang)
}

// SegmentedDictionaries returns, by language, the SegmentedDictionaryPath
// of each language of the index in dir, and false when dir holds no
// FileListFile (an index of one part).
func SegmentedDictionaries(ctx context.Context, dir string) (map[string]string, bool, error) {
	l, err := ReadFileList(ctx, dir)
	if err != nil || l == nil {
		return nil, false, err
	}
	out := map[string]string{}
	for _, part := range partNames(l) {
		files, err := FilesOfRun(ctx, SegmentDir(dir, part), scoring.DocFreqFileGlob)
		if err != nil {
			return nil, true, err
		}
		for _, f := range files {
			if lang, ok := scoring.DocFreqLanguage(storage.Base(f)); ok {
				out[lang] = SegmentedDictionaryPath(dir, lang)
			}
		}
	}
	return out, true, nil
}

// partNames is "" for the base if the list uses it, then the segments.
func partNames(l *FileList) []string {
	var parts []string
	if l.HasBase() {
		parts = append(parts, "")
	}
	return append(parts, l.Segments()...)
}

// SummedDocFreqs are the document-frequency counts of the parts of a
// segmented index, summed (SumDocFreqs).
type SummedDocFreqs struct {
	// Langs are the counts by language at the sample level of all the
	// files, unpruned.
	Langs map[string]*scoring.DocFreq
	// Levels are the counts by language and sample level, of the levels
	// the sample keeps (Sample.Level() and above).
	Levels map[string]map[int]*scoring.DocFreq
	// Sample is the sample of all the files, the candidates of the parts
	// summed; Sampled says the parts record it (index.DictionarySampleFile).
	Sample  index.DictionarySample
	Sampled bool
	// MinDF is the --dictionary_min_df the index was built with.
	MinDF int64
}

// DictionaryFile returns the df-LANG.tsv of a language that one full build
// of the files writes: the "#sample" line when the sample left documents
// out, then the counts pruned at MinDF.
func (d *SummedDocFreqs) DictionaryFile(lang string) ([]byte, error) {
	c := scoring.NewDocFreq(lang)
	if err := c.Merge(d.Langs[lang]); err != nil {
		return nil, err
	}
	c.Prune(d.MinDF)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	if d.Sampled {
		return d.Sample.AddHeaderLine(b.Bytes()), nil
	}
	return b.Bytes(), nil
}

// CountsFile returns the dfcounts-LANG.tsv of a language that one build of
// the files with --add writes (WriteDocFreqLevels).
func (d *SummedDocFreqs) CountsFile(lang string) ([]byte, error) {
	var b bytes.Buffer
	err := WriteDocFreqLevels(&b, d.Levels[lang])
	return b.Bytes(), err
}

// SampleFile returns the dfsample.tsv of the files.
func (d *SummedDocFreqs) SampleFile() []byte {
	var b bytes.Buffer
	d.Sample.WriteTo(&b)
	return b.Bytes()
}

// docFreqLevelHeader starts the section of one sample level in
// dfcounts-LANG.tsv.
const docFreqLevelHeader = "#level\t"

// WriteDocFreqLevels writes counts by sample level: for each level, in
// order, a "#level<TAB>L" line, then the counts of the documents of that
// level in the format of df-LANG.tsv (scoring.DocFreq.WriteTo).
func WriteDocFreqLevels(w io.Writer, levels map[int]*scoring.DocFreq) error {
	for _, l := range slices.Sorted(maps.Keys(levels)) {
		if _, err := fmt.Fprintf(w, "%s%d\n", docFreqLevelHeader, l); err != nil {
			return err
		}
		if _, err := levels[l].WriteTo(w); err != nil {
			return err
		}
	}
	return nil
}

// ReadDocFreqLevels reads what WriteDocFreqLevels writes. Counts without
// a "#level" line (a file written before the counts had levels) are
// level 0. name is used in errors.
func ReadDocFreqLevels(data []byte, name string) (map[int]*scoring.DocFreq, error) {
	out := map[int]*scoring.DocFreq{}
	level, section, seen := 0, []byte(nil), false
	flush := func() error {
		if !seen && len(bytes.TrimSpace(section)) == 0 {
			return nil // nothing before the first "#level"
		}
		if _, dup := out[level]; dup {
			return fmt.Errorf("%s: level %d twice", name, level)
		}
		c, err := scoring.ReadDocFreq(bytes.NewReader(section), fmt.Sprintf("%s (level %d)", name, level))
		if err != nil {
			return err
		}
		out[level] = c
		return nil
	}
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if v, ok := bytes.CutPrefix(line, []byte(docFreqLevelHeader)); ok {
			if err := flush(); err != nil {
				return nil, err
			}
			l, err := strconv.Atoi(strings.TrimSpace(string(v)))
			if err != nil || l < 0 || l >= index.Levels {
				return nil, fmt.Errorf("%s: %q is not a sample level", name, line)
			}
			level, section, seen = l, nil, true
		} else {
			section = append(append(section, line...), '\n')
		}
		data = rest
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// SumDocFreqs adds up, by language, the document-frequency counts of every
// part of the segmented index in dir (dfcounts-LANG.tsv, or df-LANG.tsv for
// a part without them), and returns the sums at the sample level of all
// the files, with the --dictionary_min_df the index was built with. Files
// removed from the index still count until a compaction recounts them.
func SumDocFreqs(ctx context.Context, dir string) (*SummedDocFreqs, error) {
	l, err := ReadFileList(ctx, dir)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return nil, fmt.Errorf("%s: no %s, not an index built with --add", dir, FileListFile)
	}
	out := &SummedDocFreqs{Langs: map[string]*scoring.DocFreq{}, Levels: map[string]map[int]*scoring.DocFreq{}, MinDF: max(l.Header.DictionaryMinDF, 1)}
	if out.Sample, out.Sampled, err = sumPartSamples(ctx, dir, l); err != nil {
		return nil, err
	}
	levels := map[string]map[int]*scoring.DocFreq{} // every level of every part
	for _, part := range partNames(l) {
		if err := addPartLevels(ctx, SegmentDir(dir, part), levels); err != nil {
			return nil, err
		}
	}
	keep := out.Sample.Level()
	for lang, byLevel := range levels {
		sum := scoring.NewDocFreq(lang)
		out.Levels[lang] = map[int]*scoring.DocFreq{}
		for lv, c := range byLevel {
			if lv < keep {
				continue
			}
			out.Levels[lang][lv] = c
			if err := sum.Merge(c); err != nil {
				return nil, fmt.Errorf("%s: %w", dir, err)
			}
		}
		out.Langs[lang] = sum
	}
	return out, nil
}

// SumDictionarySamples returns the dictionary sample of all the files of
// the segmented index in dir (SumDocFreqs' Sample and Sampled) from the
// parts' index.DictionarySampleFile alone, without reading their counts:
// what `recrawl index --add` checks its --dictionary_docs against.
func SumDictionarySamples(ctx context.Context, dir string) (index.DictionarySample, bool, error) {
	l, err := ReadFileList(ctx, dir)
	if err != nil {
		return index.DictionarySample{}, false, err
	}
	if l == nil {
		return index.DictionarySample{}, false, fmt.Errorf("%s: no %s, not an index built with --add", dir, FileListFile)
	}
	return sumPartSamples(ctx, dir, l)
}

// sumPartSamples sums the samples of the parts the list l of dir names;
// parts counted with different --dictionary_docs are an error.
func sumPartSamples(ctx context.Context, dir string, l *FileList) (index.DictionarySample, bool, error) {
	var sum index.DictionarySample
	var sumSampled bool
	for i, part := range partNames(l) {
		pdir := SegmentDir(dir, part)
		sample, sampled, err := readPartSample(ctx, pdir)
		if err != nil {
			return index.DictionarySample{}, false, err
		}
		switch {
		case i == 0:
			sum, sumSampled = sample, sampled
		case sampled != sumSampled || sample.MaxDocs != sum.MaxDocs:
			return index.DictionarySample{}, false, fmt.Errorf("%s: the parts of the index were counted with different --dictionary_docs (%s): compact it with `recrawl index compact`, or build it again", pdir, index.DictionarySampleFile)
		default:
			sum.AddCandidates(sample)
		}
	}
	return sum, sumSampled, nil
}

// readPartSample reads the dfsample.tsv of a part, and false if it has none.
func readPartSample(ctx context.Context, pdir string) (index.DictionarySample, bool, error) {
	p := storage.Join(pdir, index.DictionarySampleFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return index.DictionarySample{Rate: 1}, false, nil
	}
	if err != nil {
		return index.DictionarySample{}, false, fmt.Errorf("dictionary sample: %w", err)
	}
	s, err := index.ReadDictionarySample(bytes.NewReader(data), p)
	return s, true, err
}

// addPartLevels adds the counts by language and level of the part in pdir
// to levels.
func addPartLevels(ctx context.Context, pdir string, levels map[string]map[int]*scoring.DocFreq) error {
	files, err := FilesOfRun(ctx, pdir, scoring.DocFreqFileGlob)
	if err != nil {
		return err
	}
	m, err := ReadManifest(ctx, pdir)
	if err != nil {
		return err
	}
	slices.Sort(files)
	for _, f := range files {
		lang, ok := scoring.DocFreqLanguage(storage.Base(f))
		if !ok {
			continue
		}
		if counts := DocFreqCountsFileName(lang); m != nil && m.Lists(counts) {
			f = storage.Join(pdir, counts)
		}
		data, err := storage.ReadFile(ctx, f)
		if err != nil {
			return fmt.Errorf("document frequencies: %w", err)
		}
		byLevel, err := ReadDocFreqLevels(data, f)
		if err != nil {
			return err
		}
		if levels[lang] == nil {
			levels[lang] = map[int]*scoring.DocFreq{}
		}
		for lv, c := range byLevel {
			if c.Lang == "" {
				c.Lang = lang
			}
			have := levels[lang][lv]
			if have == nil {
				levels[lang][lv] = c
				continue
			}
			if err := have.Merge(c); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return nil
}
