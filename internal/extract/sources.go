package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// Source is one named archive of an extraction that reads several: its
// snapshot index and the locations of the WARC/ARC files the index names.
type Source struct {
	Name     string   `json:"name"`
	Index    string   `json:"index"`    // cdxj:FILE, zipnum:DIR or bigtable:P/I/T
	Archives []string `json:"archives"` // its archive locations, searched in order
}

// ArchiveUse is one archive of a run with named archives, as run.json
// lists it: where it is and how many documents of the collection came from it.
type ArchiveUse struct {
	Name      string   `json:"name"`
	Index     string   `json:"index"`
	Locations []string `json:"locations"`
	Documents int      `json:"documents"`
}

// maxArchiveName bounds an archive name (it is written on every document).
const maxArchiveName = 64

// SetArchives sets the job's Sources from the values of the --index and
// --archive flags, each of which may be given several times:
//
//   - the single-archive form: one unnamed --index (cdxj:FILE, zipnum:DIR,
//     bigtable:P/I/T) and its locations in --archive (comma-separated). It
//     sets one source named "", with the same outputs as before archives
//     had names: a repeated unnamed flag is not a second archive, its last
//     value wins (with a warning in the log). Neither flag: no source.
//   - the named form: every value NAME=VALUE (--index national=zipnum:/idx
//     --archive national=/warcs,gs://b/warcs), one --index and one
//     --archive per name. It sets Sources, in the order of the --index
//     values: ties between archives go to the one named first.
//
// A value is named when the text before its first '=' is a valid name
// (letters, digits, '_', '.', '-'; an index spec's "kind:" or a path's '/'
// make it unnamed), so a location whose name contains '=' is written
// ./dir=x. Errors name the flag and the value.
func (j *Job) SetArchives(indexes, archives []string) error {
	idx, err := parseNamed("--index", indexes)
	if err != nil {
		return err
	}
	arc, err := parseNamed("--archive", archives)
	if err != nil {
		return err
	}
	j.Sources = nil
	if !idx.named && !arc.named {
		// As with any flag, the last value wins (as it always did).
		for _, f := range []struct {
			name string
			v    namedValues
		}{{"--index", idx}, {"--archive", arc}} {
			if n := len(f.v.values); n > 1 {
				slog.Warn(f.name+" is given several times without names: the last one is used; to read several archives, name each one (--index NAME=SPEC --archive NAME=LOCATIONS)",
					"flag", f.name, "times", n, "used", f.v.values[n-1].raw)
			}
		}
		if len(idx.values) == 0 && len(arc.values) == 0 {
			return nil
		}
		var unnamed Source
		if n := len(idx.values); n > 0 {
			unnamed.Index = idx.values[n-1].value
		}
		if n := len(arc.values); n > 0 {
			unnamed.Archives = storage.SplitList(arc.values[n-1].value)
		}
		j.Sources = []Source{unnamed}
		return nil
	}
	switch {
	case !idx.named && len(idx.values) > 0:
		return fmt.Errorf("--index %q has no name, but --archive %s= is named: name every archive, --index NAME=SPEC with --archive NAME=LOCATIONS", idx.values[0].raw, arc.values[0].name)
	case !arc.named && len(arc.values) > 0:
		return fmt.Errorf("--archive %q has no name, but --index %s= is named: name every archive, --archive NAME=LOCATIONS for each --index NAME=SPEC", arc.values[0].raw, idx.values[0].name)
	}
	locations := map[string][]string{}
	for _, a := range arc.values {
		locations[a.name] = storage.SplitList(a.value)
		if !idx.has(a.name) {
			return fmt.Errorf("--archive %s=%s: no --index %s=SPEC gives the index of archive %q", a.name, a.value, a.name, a.name)
		}
	}
	for _, i := range idx.values {
		locs, ok := locations[i.name]
		if !ok {
			return fmt.Errorf("--index %s=%s: no --archive %s=LOCATIONS says where the files of archive %q are", i.name, i.value, i.name, i.name)
		}
		if len(locs) == 0 {
			return fmt.Errorf("--archive %s=: no locations for archive %q", i.name, i.name)
		}
		j.Sources = append(j.Sources, Source{Name: i.name, Index: i.value, Archives: locs})
	}
	return nil
}

type namedValue struct {
	name, value, raw string
}

type namedValues struct {
	values []namedValue
	named  bool
}

func (n namedValues) has(name string) bool {
	for _, v := range n.values {
		if v.name == name {
			return true
		}
	}
	return false
}

// parseNamed splits a flag's values into names and values and checks that
// they are all named (with distinct names) or all unnamed.
func parseNamed(flagName string, raw []string) (namedValues, error) {
	var out namedValues
	seen := map[string]bool{}
	var firstUnnamed, firstNamed string
	for _, r := range raw {
		name, value, named := cutName(r)
		if named {
			switch {
			case name == "":
				return out, fmt.Errorf("%s %q: empty archive name before '='", flagName, r)
			case len(name) > maxArchiveName:
				return out, fmt.Errorf("%s %q: archive name longer than %d characters", flagName, r, maxArchiveName)
			case strings.TrimSpace(value) == "":
				return out, fmt.Errorf("%s %q: nothing after %s=", flagName, r, name)
			case seen[name]:
				return out, fmt.Errorf("%s: archive name %q is given twice", flagName, name)
			}
			seen[name] = true
			if firstNamed == "" {
				firstNamed = r
			}
		} else if firstUnnamed == "" {
			firstUnnamed = r
		}
		out.values = append(out.values, namedValue{name: name, value: strings.TrimSpace(value), raw: r})
	}
	if firstNamed != "" && firstUnnamed != "" {
		return out, fmt.Errorf("%s: %q is named but %q is not: either name every archive (NAME=VALUE) or give a single unnamed archive", flagName, firstNamed, firstUnnamed)
	}
	out.named = firstNamed != ""
	return out, nil
}

// cutName splits "NAME=VALUE". The text before the first '=' is a name
// when it is empty (an error for the caller) or made of letters, digits,
// '_', '.' and '-' only; anything else (cdxj:…, /data/…) is an unnamed value.
func cutName(s string) (name, value string, named bool) {
	before, after, ok := strings.Cut(s, "=")
	if !ok {
		return "", s, false
	}
	for _, r := range before {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return "", s, false
		}
	}
	return before, after, true
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
func (j *Job) ArchiveUses(results ResultSource) ([]ArchiveUse, error) {
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
	out := make([]ArchiveUse, 0, len(j.Sources))
	for _, s := range j.Sources {
		out = append(out, ArchiveUse{Name: s.Name, Index: s.Index, Locations: s.Archives, Documents: counts[s.Name]})
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
