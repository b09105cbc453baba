package extract

import (
	"context"
	"errors"
	"fmt"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/scoring"
)

// Source is one named archive of an extraction that reads several: its
// snapshot index and the locations of the WARC/ARC files the index names.
type Source struct {
	Name     string   `json:"name"`
	Index    string   `json:"index"`    // cdxj:FILE, zipnum:DIR or bigtable:P/I/T
	Archives []string `json:"archives"` // its archive locations, searched in order
}

// Named reports whether the job's archives have names: false for a single
// unnamed archive (one source named "") and for a job without archives.
func (j *Job) Named() bool {
	return len(j.Sources) > 0 && j.Sources[0].Name != ""
}

// HasIndex reports whether the job names a snapshot index.
func (j *Job) HasIndex() bool {
	for _, s := range j.Sources {
		if s.Index != "" {
			return true
		}
	}
	return false
}

// ArchiveNames returns the names of the job's archives in the order they
// were given (ties in snapshot selection go to the first), or nil for a
// single unnamed archive.
func (j *Job) ArchiveNames() []string {
	if !j.Named() {
		return nil
	}
	var names []string
	for _, s := range j.Sources {
		names = append(names, s.Name)
	}
	return names
}

// IndexSources returns the job's snapshot indexes for lookup.OpenSources.
func (j *Job) IndexSources() []lookup.Source {
	var out []lookup.Source
	for _, s := range j.Sources {
		out = append(out, lookup.Source{Name: s.Name, Spec: s.Index})
	}
	return out
}

// OpenIndex opens the job's snapshot index: the one index of a single
// unnamed archive, or a multi-index over the named ones (captures tagged
// with their archive's name).
func (j *Job) OpenIndex(ctx context.Context) (lookup.Index, error) {
	return lookup.OpenSources(ctx, j.IndexSources())
}

// NewFetcher returns a fetcher that reads a capture's record from the
// locations of the capture's archive.
func (j *Job) NewFetcher() *archive.Fetcher {
	locations := map[string][]string{"": nil} // a job without archives: every file is missing
	if len(j.Sources) > 0 {
		locations = map[string][]string{}
	}
	for _, s := range j.Sources {
		locations[s.Name] = s.Archives
	}
	f := archive.NewArchivesFetcher(locations)
	if j.Spec != nil {
		f.MaxBodyBytes = j.Spec.MaxDocumentBytes
	}
	f.CountMissingFiles = j.OnMissingFile == OnMissingFileCount
	return f
}

// ArchiveUses counts the collected documents of each named archive, for
// run.json; nil for a single unnamed archive.
func (j *Job) ArchiveUses(results ResultSource) ([]collection.ArchiveUse, error) {
	if !j.Named() {
		return nil, nil
	}
	counts := map[string]int{}
	if err := results(func(r Result) error {
		if r.Outcome == OutcomeCollected && r.Document != nil {
			counts[r.Document.Archive]++
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]collection.ArchiveUse, 0, len(j.Sources))
	for _, s := range j.Sources {
		out = append(out, collection.ArchiveUse{Name: s.Name, Index: s.Index, Locations: s.Archives, Documents: counts[s.Name]})
	}
	return out, nil
}

// FindSourceDictionaries returns, by language, the document-frequency
// files (df-LANG.tsv) the index pipeline wrote next to each named
// archive's index, in archive order. Loaded with LoadDictionaries, the
// files of one language are summed: the IDF of the archives together.
func FindSourceDictionaries(ctx context.Context, sources []Source) (map[string][]string, error) {
	out := map[string][]string{}
	for _, s := range sources {
		d, err := FindDictionaries(ctx, s.Index)
		if err != nil {
			return nil, fmt.Errorf("archive %q: dictionaries next to %s: %w", s.Name, s.Index, err)
		}
		for lang, f := range d {
			out[lang] = append(out[lang], f)
		}
	}
	return out, nil
}

// LoadDictionaries loads one dictionary from several files: one file as
// LoadDictionary does; several document-frequency files (those of several
// archives' indexes) summed, documents and document frequencies alike, so
// idf = ln(ΣN / Σdf) over the archives together.
func LoadDictionaries(ctx context.Context, files []string) (*scoring.Dictionary, error) {
	switch len(files) {
	case 0:
		return nil, errors.New("dictionary: no files")
	case 1:
		return LoadDictionary(ctx, files[0])
	}
	var sum *scoring.DocFreq
	for _, p := range files {
		df, err := LoadDocFreq(ctx, p)
		if err != nil {
			return nil, err
		}
		if sum == nil {
			sum = df
			continue
		}
		if err := sum.Merge(df); err != nil {
			return nil, fmt.Errorf("dictionary %s: %w", p, err)
		}
	}
	return sum.Dictionary(), nil
}
