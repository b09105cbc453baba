package round

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/transforms/gather"
)

// WriteManifest writes OutDir/round.manifest (roundstate.WriteManifest)
// from the manifest lines of every part file the round wrote. It returns
// the manifest's path, once it is written.
func WriteManifest(s beam.Scope, outDir string, parts ...beam.PCollection) beam.PCollection {
	s = s.Scope("WriteManifest")
	return beam.ParDo(s, &writeManifestFn{Dir: outDir}, gather.All(s, parts...))
}

type writeManifestFn struct {
	Dir string
}

func (f *writeManifestFn) ProcessElement(ctx context.Context, _ int, parts func(*string) bool) (string, error) {
	return storage.Join(f.Dir, roundstate.ManifestFile), roundstate.WriteManifest(ctx, f.Dir, gather.Strings(parts))
}
