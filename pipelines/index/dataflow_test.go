package index

import (
	"github.com/recrawl/recrawl/internal/testkit/testservers"

	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDataflowDryRun translates the index pipeline for Dataflow with
// --dry_run, offline: Beam builds the Dataflow job (what would be submitted)
// and prints it. The archives are on a GCS emulator, as they would be on GCS
// for a real Dataflow job; the test checks that the job names the steps of
// the pipeline for both output formats.
func TestDataflowDryRun(t *testing.T) {
	inputs := portableInputs(t)[:3]
	indexCommand(t)
	addr := testservers.GCS(t)
	uploadToEmulator(t, addr, "archives", "crawl", inputs)

	for _, tc := range []struct {
		format string
		steps  []string
	}{
		{"cdxj", []string{"IndexArchives", "SortIntoShards", "WriteCDXJ"}},
		{"zipnum", []string{"IndexArchives", "SortIntoShards", "WriteZipNum"}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			log := runIndexCommand(t, []string{"STORAGE_EMULATOR_HOST=" + addr},
				"--runner=dataflow", "--dry_run", "--project=p", "--region=r",
				"--staging_location=gs://b/staging", "--job_name=recrawl-index-dry-run",
				"--input=gs://archives/crawl/*", "--output=gs://archives/index-"+tc.format,
				"--format="+tc.format, "--shards=4")
			if !strings.Contains(log, "Dry-run: not submitting job!") {
				t.Fatalf("no dry run in the output:\n%s", log)
			}
			// The log quotes what Beam prints; unquote it once.
			log = strings.ReplaceAll(log, `\"`, `"`)
			// The pipeline the job runs (Dataflow runner v2 takes the Beam
			// model; the job JSON points at it): its transforms are named
			// after the composites' scopes, e.g. "IndexArchives/...".
			var names []string
			for _, m := range regexp.MustCompile(`unique_name:"([^"]+)"`).FindAllStringSubmatch(log, -1) {
				names = append(names, m[1])
			}
			if len(names) == 0 {
				t.Fatalf("the printed job has no transforms:\n%s", log)
			}
			for _, step := range tc.steps {
				if !slices.Contains(names, step) {
					t.Errorf("the Dataflow job has no step %s; its transforms: %v", step, names)
				}
			}
			for _, want := range []string{`"name": "recrawl-index-dry-run"`, `"projectId": "p"`,
				`"tempStoragePrefix": "gs://b/staging/tmp"`, `"job_type": "FNAPI_BATCH"`} {
				if !strings.Contains(log, want) {
					t.Errorf("the printed job does not contain %s", want)
				}
			}
		})
	}
}
