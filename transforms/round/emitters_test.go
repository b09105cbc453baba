package round

import (
	"context"
	"reflect"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/typex"
)

// countingProcessor is the next step of an emitter: it counts what it is
// given and keeps none of it.
type countingProcessor struct{ n int }

func (p *countingProcessor) ProcessElement(context.Context, *exec.FullValue, ...exec.ReStream) error {
	p.n++
	return nil
}

// TestEmittersKeepNoElement: every emitter of the package's shims forgets
// the element it emitted once the next step has it. The Go SDK harness
// keeps the plans it ran, emitters included, until the worker ends (on
// prism, the end of the job): an emitter that kept its last element kept,
// for every stage of every round of a job of several rounds, the element
// and what it shares memory with (a capture's strings share the inflated
// index block they were read from).
func TestEmittersKeepNoElement(t *testing.T) {
	makers := map[string]func(exec.ElementProcessor) exec.ReusableEmitter{
		"extract.Entry":         emitMakerExtract۰Entry,
		"IndexRange":            emitMakerIndexRange,
		"Plan":                  emitMakerPlan,
		"SelectedChunk":         emitMakerSelectedChunk,
		"[]extract.Entry":       emitMakerSliceOfExtract۰Entry,
		"[]Ranked":              emitMakerSliceOfRanked,
		"[]Resolved":            emitMakerSliceOfResolved,
		"string":                emitMakerString,
		"string, Discovery":     emitMakerStringDiscovery,
		"string, extract.Entry": emitMakerStringExtract۰Entry,
		"string, IndexLine":     emitMakerStringIndexLine,
		"string, Ranked":        emitMakerStringRanked,
	}
	for name, maker := range makers {
		next := &countingProcessor{}
		em := maker(next)
		if err := em.Init(context.Background(), typex.NoFiringPane(), window.SingleGlobalWindow, mtime.ZeroTimestamp); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		emit := reflect.ValueOf(em.Value())
		args := make([]reflect.Value, emit.Type().NumIn())
		for i := range args {
			args[i] = reflect.New(emit.Type().In(i)).Elem()
		}
		emit.Call(args)
		if next.n != 1 {
			t.Fatalf("%s: the next step got %d elements, want 1", name, next.n)
		}
		if v := em.(*emitNative).value; v.Elm != nil || v.Elm2 != nil {
			t.Errorf("emitter of %s keeps the element it emitted (%T)", name, v.Elm)
		}
	}
}
