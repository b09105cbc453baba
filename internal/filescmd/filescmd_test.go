package filescmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"

	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// TestListAndCopy, on local folders and the GCS emulator: list prints the
// matching files of several patterns sorted, once each; copy of a folder
// to gs:// writes every file below it, a second copy rewrites no object
// (the same generations), a changed file is the only one copied again,
// and a copy back from gs:// to a local folder gives the same bytes. A
// missing source is an error naming it.
func TestListAndCopy(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", testservers.GCS(t)) // before the first gs:// use in this process
	ctx := context.Background()
	client, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := client.Bucket("pub").Create(ctx, "test-project", nil); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	files := map[string]string{
		"collection.wacz":        strings.Repeat("wacz", 10000),
		"report/report.html":     "<html>report</html>",
		"report/evaluation.json": `{"runs": 1}`,
		"report/plots/a.svg":     "<svg/>",
	}
	for name, data := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var out bytes.Buffer
	if err := list(ctx, &out, []string{filepath.Join(src, "report", "*.json"), filepath.Join(src, "*.wacz"), filepath.Join(src, "report", "evaluation.*"), filepath.Join(src, "*.none")}); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(src, "collection.wacz") + "\n" + filepath.Join(src, "report", "evaluation.json") + "\n"; out.String() != want {
		t.Errorf("list of local patterns:\n%s\nwant\n%s", out.String(), want)
	}

	copyLog := func(from, to string) string {
		t.Helper()
		var log bytes.Buffer
		if err := copyFiles(ctx, &log, from, to); err != nil {
			t.Fatalf("copy %s %s: %v", from, to, err)
		}
		return log.String()
	}
	generations := func() map[string]int64 {
		t.Helper()
		gens := map[string]int64{}
		it := client.Bucket("pub").Objects(ctx, nil)
		for {
			a, err := it.Next()
			if err != nil {
				break
			}
			gens[a.Name] = a.Generation
		}
		return gens
	}

	const dest = "gs://pub/night/event"
	if got, want := copyLog(src, dest), "copied collection.wacz\ncopied report/evaluation.json\ncopied report/plots/a.svg\ncopied report/report.html\n"; got != want {
		t.Errorf("first copy printed\n%s\nwant\n%s", got, want)
	}
	first := generations()
	if len(first) != len(files) {
		t.Fatalf("the bucket holds %v, want the %d files", first, len(files))
	}
	for name, data := range files {
		r, err := client.Bucket("pub").Object("night/event/" + name).NewReader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(r)
		r.Close()
		if b.String() != data {
			t.Errorf("gs://pub/night/event/%s holds %d bytes, want %d", name, b.Len(), len(data))
		}
	}
	out.Reset()
	if err := list(ctx, &out, []string{dest + "/report/*"}); err != nil {
		t.Fatal(err)
	}
	if want := dest + "/report/evaluation.json\n" + dest + "/report/report.html\n"; out.String() != want {
		t.Errorf("list of a gs:// pattern:\n%s\nwant\n%s", out.String(), want)
	}

	if got := copyLog(src, dest); strings.Contains(got, "copied") {
		t.Errorf("a second copy of the same files copied:\n%s", got)
	}
	if again := generations(); !reflect.DeepEqual(again, first) {
		t.Errorf("a second copy of the same files rewrote objects: generations %v, then %v", first, again)
	}

	// One changed file of the same size, and a single-file copy.
	if err := os.WriteFile(filepath.Join(src, "report", "report.html"), []byte("<html>REPORT</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := copyLog(src, dest), "unchanged collection.wacz\nunchanged report/evaluation.json\nunchanged report/plots/a.svg\ncopied report/report.html\n"; got != want {
		t.Errorf("copy after one file changed printed\n%s\nwant\n%s", got, want)
	}
	if got := copyLog(filepath.Join(src, "collection.wacz"), dest+"/collection.wacz"); got != "unchanged collection.wacz\n" {
		t.Errorf("copy of an unchanged single file printed %q", got)
	}

	// Back from gs:// into a local folder.
	back := filepath.Join(t.TempDir(), "mirror")
	copyLog(dest+"/report", back)
	for _, name := range []string{"report.html", "evaluation.json", "plots/a.svg"} {
		got, err := os.ReadFile(filepath.Join(back, name))
		want, _ := os.ReadFile(filepath.Join(src, "report", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s copied back from gs://: %q, %v; want %q", name, got, err, want)
		}
	}
	if got := copyLog(dest+"/report", back); strings.Contains(got, "copied") {
		t.Errorf("a second copy from gs:// copied:\n%s", got)
	}

	for _, missing := range []string{filepath.Join(src, "none"), "gs://pub/none"} {
		if err := copyFiles(ctx, &out, missing, back); err == nil || !strings.Contains(err.Error(), missing) {
			t.Errorf("copy of the missing %s: %v, want an error naming it", missing, err)
		}
	}
}
