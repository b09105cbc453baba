package recrawlcmd

import (
	"flag"
	"slices"
	"sort"
	"testing"

	"github.com/recrawl/recrawl/pipelines/extract"
	"github.com/recrawl/recrawl/pipelines/index"
)

// TestFlagNamesShared: the pipelines' own flags are defined on
// flag.CommandLine beside Beam's, one subcommand's at a time. A pipeline
// flag named like a Beam flag would be dropped there (cliflags.Own keeps
// the first definition), and a name both pipelines define must be one whose
// two meanings are documented in cmd/recrawl: --output (the directory
// written, in both), --verbose and --check (the same in both) and
// --dictionary (index: also write df-LANG.tsv; extract: the dictionary to
// read).
func TestFlagNamesShared(t *testing.T) {
	var shared []string
	for _, fs := range []*flag.FlagSet{index.Flags(), extract.Flags()} {
		fs.VisitAll(func(f *flag.Flag) {
			if flag.CommandLine.Lookup(f.Name) != nil { // no subcommand ran: these are Beam's
				t.Errorf("--%s of %s is a Beam flag too", f.Name, fs.Name())
			}
		})
	}
	index.Flags().VisitAll(func(f *flag.Flag) {
		if extract.Flags().Lookup(f.Name) != nil {
			shared = append(shared, f.Name)
		}
	})
	sort.Strings(shared)
	if want := []string{"check", "dictionary", "output", "verbose"}; !slices.Equal(shared, want) {
		t.Errorf("index and extract both define %v, want %v: document a new shared name in cmd/recrawl and here", shared, want)
	}
}

func TestIsWorker(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--worker=true", "--id=1", "--logging_endpoint=localhost:1", "--control_endpoint=localhost:2"}, true},
		{[]string{"--id=1", "-worker"}, true},
		{[]string{"--semi_persist_dir", "/tmp", "--worker"}, true},
		{nil, false},
		{[]string{"index", "--worker"}, false},
		{[]string{"--workers=3"}, false},
		{[]string{"--worker_binary=/w"}, false},
	} {
		if got := isWorker(tc.args); got != tc.want {
			t.Errorf("isWorker(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestExtractArgs(t *testing.T) {
	for _, tc := range []struct{ old, want []string }{
		{nil, []string{"extract"}},
		{[]string{"--spec", "s"}, []string{"extract", "--spec", "s"}},
		{[]string{"run", "--spec", "s"}, []string{"extract", "--spec", "s"}},
		{[]string{"explain", "--html", "f"}, []string{"explain", "--html", "f"}},
		{[]string{"eval", "--runs", "a"}, []string{"eval", "--runs", "a"}},
		{[]string{"serve", "--report", "r"}, []string{"serve", "--report", "r"}},
		{[]string{"help"}, []string{"extract", "--help"}},
	} {
		if got := extractArgs(tc.old); !slices.Equal(got, tc.want) {
			t.Errorf("extract %q is recrawl %q, want %q", tc.old, got, tc.want)
		}
	}
}
