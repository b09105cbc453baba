package index

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/transforms/gather"
)

// WriteIndexManifest writes dir's manifest (lookup.ManifestFile), complete,
// listing the files whose paths the writers emitted (the elements of
// written: WriteCDXJ, WriteZipNum, WriteDocumentFrequencies), once all of
// them are written. Readers then use only those files (lookup.FilesOfRun),
// and the next index run into dir removes only those. Returns the
// manifest's path.
func WriteIndexManifest(s beam.Scope, dir string, written ...beam.PCollection) beam.PCollection {
	s = s.Scope("WriteIndexManifest")
	return beam.ParDo(s, &writeIndexManifestFn{Dir: dir}, gather.All(s, written...))
}

type writeIndexManifestFn struct {
	Dir string
}

func (f *writeIndexManifestFn) ProcessElement(ctx context.Context, _ int, paths func(*string) bool) (string, error) {
	names := gather.Strings(paths)
	for i, p := range names {
		names[i] = storage.Base(p)
	}
	return storage.Join(f.Dir, lookup.ManifestFile), lookup.WriteManifest(ctx, f.Dir, lookup.Manifest{Complete: true, Files: names})
}
