// Package specs loads and validates the Collection Specification: what an
// event-centric collection is about (topical scope), when the event happened
// (temporal scope), where the extraction starts (seeds) and how it runs
// (strategy, limits, focusing options). It is Definitions 1 and 2 of Gossen
// et al. (TPDL 2017) plus the options of method.md §1.
//
// A specification is YAML or JSON with one schema; Load picks the syntax by
// extension (else by content) and also reads the original authors' JSON
// format (LoadOriginal documents the mapping). Every field is declared once,
// as a tagged field of Spec (spec.go) or Focus (focus.go); schema.go lists
// the tags. The decoder reads the document into Spec after the tags (known
// fields only, every value of its field's type), Validate checks every rule
// about values and between fields, and every problem is reported at once
// with file, line, field path and reason. Defaults are written once, in
// Defaults. Write and MarshalJSON produce the canonical form, which Parse
// reads back unchanged, so a run records the specification it used.
//
// Load makes relative paths (reference document files, the dictionary)
// absolute and refuses any that lie outside the specification's folder or a
// folder the caller allows, symbolic links resolved.
//
// The field reference, with defaults and when to change each field, is
// docs/specification.md.
package specs
