package specs_test

import (
	"testing"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/specs"
)

// TestMaxBatchSizeIsTheOrderBound: the spec's bound on batch_size is the
// largest rank a discovery order encodes.
func TestMaxBatchSizeIsTheOrderBound(t *testing.T) {
	if specs.MaxBatchSize != extract.MaxBatchSize {
		t.Errorf("specs.MaxBatchSize %d, extract.MaxBatchSize %d", specs.MaxBatchSize, extract.MaxBatchSize)
	}
}
