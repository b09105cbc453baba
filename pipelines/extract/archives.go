package extract

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/storage"
)

// Several archives at once: --index and --archive may be repeated and their
// values named, NAME=VALUE (sourcesFromFlags has the rules):
//
//	--index national=zipnum:/data/idx --archive national=/data/warcs,gs://b/warcs
//	--index special=cdxj:/data/sc.cdxj --archive special=/data/sc
//
// A single unnamed --index with its --archive is the form it always was,
// and gives the same outputs as before.

// listFlag is a flag that may be given several times; each value is kept.
type listFlag []string

// String joins the values with "; " (run.json's record of the flag); one
// value is printed as it was given.
func (l *listFlag) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, "; ")
}

// Set adds one value.
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// archivePaths are the storage paths of a job's indexes and archive
// locations, comma-separated, for runners.Config.Validate (every worker
// must reach them).
func archivePaths(job *extract.Job) (indexes, locations string) {
	var idx, locs []string
	for _, s := range job.Sources {
		if p := indexPath(s.Index); p != "" {
			idx = append(idx, p)
		}
		locs = append(locs, s.Archives...)
	}
	return strings.Join(idx, ","), strings.Join(locs, ",")
}

// maxArchiveName bounds an archive name (it is written on every document).
const maxArchiveName = 64

// sourcesFromFlags returns a job's Sources (extract.Job) from the values
// of the --index and --archive flags, each of which may be given several
// times:
//
//   - the single-archive form: one unnamed --index (cdxj:FILE, zipnum:DIR,
//     bigtable:P/I/T) and its locations in --archive (comma-separated). It
//     gives one source named "", with the same outputs as before archives
//     had names: a repeated unnamed flag is not a second archive, its last
//     value wins (with a warning in the log). Neither flag: no source.
//   - the named form: every value NAME=VALUE (--index national=zipnum:/idx
//     --archive national=/warcs,gs://b/warcs), one --index and one
//     --archive per name. It gives the sources, in the order of the --index
//     values: ties between archives go to the one named first.
//
// A value is named when the text before its first '=' is a valid name
// (letters, digits, '_', '.', '-'; an index spec's "kind:" or a path's '/'
// make it unnamed), so a location whose name contains '=' is written
// ./dir=x. Errors name the flag and the value.
func sourcesFromFlags(indexes, archives []string) ([]extract.Source, error) {
	idx, err := parseNamed("--index", indexes)
	if err != nil {
		return nil, err
	}
	arc, err := parseNamed("--archive", archives)
	if err != nil {
		return nil, err
	}
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
			return nil, nil
		}
		var unnamed extract.Source
		if n := len(idx.values); n > 0 {
			unnamed.Index = idx.values[n-1].value
		}
		if n := len(arc.values); n > 0 {
			unnamed.Archives = storage.SplitList(arc.values[n-1].value)
		}
		return []extract.Source{unnamed}, nil
	}
	switch {
	case !idx.named && len(idx.values) > 0:
		return nil, fmt.Errorf("--index %q has no name, but --archive %s= is named: name every archive, --index NAME=SPEC with --archive NAME=LOCATIONS", idx.values[0].raw, arc.values[0].name)
	case !arc.named && len(arc.values) > 0:
		return nil, fmt.Errorf("--archive %q has no name, but --index %s= is named: name every archive, --archive NAME=LOCATIONS for each --index NAME=SPEC", arc.values[0].raw, idx.values[0].name)
	}
	locations := map[string][]string{}
	var sources []extract.Source
	for _, a := range arc.values {
		locations[a.name] = storage.SplitList(a.value)
		if !idx.has(a.name) {
			return nil, fmt.Errorf("--archive %s=%s: no --index %s=SPEC gives the index of archive %q", a.name, a.value, a.name, a.name)
		}
	}
	for _, i := range idx.values {
		locs, ok := locations[i.name]
		if !ok {
			return nil, fmt.Errorf("--index %s=%s: no --archive %s=LOCATIONS says where the files of archive %q are", i.name, i.value, i.name, i.name)
		}
		if len(locs) == 0 {
			return nil, fmt.Errorf("--archive %s=: no locations for archive %q", i.name, i.name)
		}
		sources = append(sources, extract.Source{Name: i.name, Index: i.value, Archives: locs})
	}
	return sources, nil
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
