package round

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
)

// ReadFrontier reads frontier part files (extract.Entry values).
func ReadFrontier(s beam.Scope, files []string) beam.PCollection {
	s = s.Scope("ReadFrontier")
	if len(files) == 0 {
		files = []string{}
	}
	return beam.ParDo(s, &readFrontierFn{}, beam.CreateList(s, files))
}

// readFrontierFiles reads the frontier part files named by a PCollection.
func readFrontierFiles(s beam.Scope, files beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("ReadFrontier"), &readFrontierFn{}, files)
}

type readFrontierFn struct{}

func (f *readFrontierFn) ProcessElement(ctx context.Context, file string, emit func(extract.Entry)) error {
	err := roundstate.ReadPart(ctx, file, func(e extract.Entry) error {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		emit(e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("frontier state: %w", err)
	}
	return nil
}
