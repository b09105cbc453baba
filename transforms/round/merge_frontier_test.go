package round

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
)

// TestSplitFrontierBundleKeepsNoKeys: after its bundle the DoFn holds none
// of the side inputs' keys (the harness keeps it until the worker ends);
// the next bundle reads them again and splits the same way.
func TestSplitFrontierBundleKeepsNoKeys(t *testing.T) {
	ctx := context.Background()
	all := entries(30, 3)
	batch, discovered := all[:5], all[5:10]
	sideBatch := func() func(*[]extract.Entry) bool {
		done := false
		return func(out *[]extract.Entry) bool {
			if done {
				return false
			}
			done, *out = true, batch
			return true
		}
	}
	sideDiscovered := func() func(*string, *extract.Entry) bool {
		i := 0
		return func(k *string, e *extract.Entry) bool {
			if i == len(discovered) {
				return false
			}
			*k, *e = discovered[i].Key, discovered[i]
			i++
			return true
		}
	}
	fn := &splitFrontierFn{Dir: filepath.Join(t.TempDir(), roundstate.FrontierDir)}
	fn.Setup()
	for bundle := range 2 {
		var touched, parts []string
		for _, e := range all {
			if err := fn.ProcessElement(ctx, e, sideBatch(), sideDiscovered(), func(k string, _ extract.Entry) { touched = append(touched, k) }, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := fn.FinishBundle(nil, nil, nil, func(p string) { parts = append(parts, p) }); err != nil {
			t.Fatal(err)
		}
		if len(touched) != len(discovered) || len(parts) != 1 {
			t.Fatalf("bundle %d: %d entries touched, %d frontier files; want %d and 1", bundle, len(touched), len(parts), len(discovered))
		}
		if fn.batch != nil || fn.discovered != nil {
			t.Errorf("bundle %d: after FinishBundle the DoFn holds %d batch keys and %d discovered keys, want none", bundle, len(fn.batch), len(fn.discovered))
		}
	}
}
