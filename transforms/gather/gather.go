// Package gather makes the one element that the last step of a pipeline
// needs when it must see everything the pipeline wrote: every element of
// several PCollections, in one group that exists only once all of them do.
// The index pipeline (transforms/index) and each extraction round
// (transforms/round) write their manifest from it, so that a manifest is
// written after, and lists, every file it names.
package gather

import "github.com/apache/beam/sdks/v2/go/pkg/beam"

// All flattens cols and groups every element under one key: the result has
// one element, KV<int, iterable>, holding all of them.
func All(s beam.Scope, cols ...beam.PCollection) beam.PCollection {
	all := beam.Flatten(s, cols...)
	return beam.GroupByKey(s, beam.AddFixedKey(s, all))
}

// Strings reads the values of the group All makes of string elements.
func Strings(values func(*string) bool) []string {
	var all []string
	var v string
	for values(&v) {
		all = append(all, v)
	}
	return all
}
