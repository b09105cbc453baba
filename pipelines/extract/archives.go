package main

import (
	"strings"

	"github.com/recrawl/recrawl/internal/extract"
)

// Several archives at once: --index and --archive may be repeated and their
// values named, NAME=VALUE (extract.Job.SetArchives has the rules):
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
