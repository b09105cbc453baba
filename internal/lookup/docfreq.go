package lookup

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// DocFreqCountsPrefix starts the name of the document-frequency counts an
// index built with --add keeps beside each part's df-LANG.tsv:
// dfcounts-LANG.tsv, the same format with no term left out (no
// --dictionary_min_df), so that the parts' counts add up to those of one
// index of all the files, and are pruned after the sum.
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
	sums, minDF, err := SumDocFreqs(ctx, dir)
	if err != nil {
		return nil, err
	}
	c, ok := sums[lang]
	if !ok {
		return nil, fmt.Errorf("dictionary %q: the index in %s has no document frequencies of %q", p, dir, lang)
	}
	c.Prune(minDF)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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

// SumDocFreqs adds up, by language, the document-frequency counts of every
// part of the segmented index in dir (dfcounts-LANG.tsv, or df-LANG.tsv for
// a part without them), and returns the sums, unpruned, with the
// --dictionary_min_df the index was built with. Files removed from the
// index still count until a compaction recounts them.
func SumDocFreqs(ctx context.Context, dir string) (map[string]*scoring.DocFreq, int64, error) {
	l, err := ReadFileList(ctx, dir)
	if err != nil {
		return nil, 0, err
	}
	if l == nil {
		return nil, 0, fmt.Errorf("%s: no %s, not an index built with --add", dir, FileListFile)
	}
	sums := map[string]*scoring.DocFreq{}
	for _, part := range partNames(l) {
		pdir := SegmentDir(dir, part)
		files, err := FilesOfRun(ctx, pdir, scoring.DocFreqFileGlob)
		if err != nil {
			return nil, 0, err
		}
		m, err := ReadManifest(ctx, pdir)
		if err != nil {
			return nil, 0, err
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
				return nil, 0, fmt.Errorf("document frequencies: %w", err)
			}
			c, err := scoring.ReadDocFreq(bytes.NewReader(data), f)
			if err != nil {
				return nil, 0, err
			}
			if c.Lang == "" {
				c.Lang = lang
			}
			if sums[lang] == nil {
				sums[lang] = c
				continue
			}
			if err := sums[lang].Merge(c); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	minDF := l.Header.DictionaryMinDF
	if minDF < 1 {
		minDF = 1
	}
	return sums, minDF, nil
}
