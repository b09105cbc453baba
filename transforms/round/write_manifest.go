package round

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
)

// WriteManifest writes OutDir/round.manifest (roundstate.WriteManifest)
// from the manifest lines of every part file the round wrote. It returns
// the manifest's path, once it is written.
func WriteManifest(s beam.Scope, outDir string, parts ...beam.PCollection) beam.PCollection {
	s = s.Scope("WriteManifest")
	all := beam.Flatten(s, parts...)
	return beam.ParDo(s, &writeManifestFn{Dir: outDir}, beam.GroupByKey(s, beam.AddFixedKey(s, all)))
}

type writeManifestFn struct {
	Dir string
}

func (f *writeManifestFn) ProcessElement(ctx context.Context, _ int, parts func(*string) bool, emit func(string)) error {
	var all []string
	var p string
	for parts(&p) {
		all = append(all, p)
	}
	if err := roundstate.WriteManifest(ctx, f.Dir, all); err != nil {
		return err
	}
	emit(storage.Join(f.Dir, roundstate.ManifestFile))
	return nil
}
