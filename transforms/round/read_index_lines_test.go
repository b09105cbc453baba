package round

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/zipnum"
)

func init() {
	beam.RegisterFunction(indexLineText)
}

// indexLineText renders a line of ReadIndexLines for passert.
func indexLineText(key string, l IndexLine, emit func(string)) {
	emit(key + "|" + l.Line)
}

// TestReadIndexLinesSegmented: the whole-index read of --join=cogroup reads
// the base and the segments of an index built with --add, without the
// lines of a file removed from it, for CDXJ and ZipNum.
func TestReadIndexLinesSegmented(t *testing.T) {
	line := func(key, file string, off int) string {
		return fmt.Sprintf(`%s 20200101000000 {"url": "http://%s/", "filename": "%s", "offset": "%d", "length": "10"}`, key, key, file, off)
	}
	base := []string{line("com,a)/", "a.warc.gz", 1), line("com,b)/", "gone.warc.gz", 2), line("com,c)/", "a.warc.gz", 3)}
	segment := []string{line("com,b)/", "b.warc.gz", 4), line("com,d)/", "gone.warc.gz", 5)}
	var want []any
	for _, l := range []string{base[0], base[2], segment[0], segment[1]} {
		key, _, _ := strings.Cut(l, " ")
		want = append(want, key+"|"+l)
	}
	for _, format := range []string{lookup.KindCDXJ, lookup.KindZipNum} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			for part, lines := range map[string][]string{"": base, "000001": segment} {
				pdir := lookup.SegmentDir(dir, part)
				if err := os.MkdirAll(pdir, 0o755); err != nil {
					t.Fatal(err)
				}
				if format == lookup.KindCDXJ {
					if err := os.WriteFile(filepath.Join(pdir, lookup.CDXJFileName), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				} else if err := zipnum.Build(pdir, zipnum.Lines(lines), 10, 2); err != nil {
					t.Fatal(err)
				}
			}
			list := &lookup.FileList{Header: lookup.FileListHeader{Format: format, Shards: 1}, Files: []lookup.IndexedFile{
				{Name: "a.warc.gz"}, {Name: "gone.warc.gz", Removed: true},
				{Name: "b.warc.gz", Segment: "000001"}, {Name: "gone.warc.gz", Segment: "000001"}}}
			if err := lookup.WriteFileList(context.Background(), dir, list); err != nil {
				t.Fatal(err)
			}
			spec := "zipnum:" + dir
			if format == lookup.KindCDXJ {
				spec = "cdxj:" + filepath.Join(dir, lookup.CDXJFileName)
			}
			p, s := beam.NewPipelineWithRoot()
			lines := ReadIndexLines(s, []lookup.Source{{Spec: spec}})
			passert.Equals(s, beam.ParDo(s, indexLineText, lines), want...)
			ptest.RunAndValidate(t, p)
		})
	}
}
