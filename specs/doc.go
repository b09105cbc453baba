// Package specs loads and validates the Collection Specification: what an
// event-centric collection is about (topical scope), when the event happened
// (temporal scope), where the extraction starts (seeds) and how it runs
// (strategy and limits). It is Definition 1 and 2 of Gossen et al. (TPDL 2017)
// plus the options of method.md §1; specs/README.md has a table of all
// fields with types, defaults and meaning.
//
// # Formats
//
// One schema with snake_case field names, written in YAML or JSON:
//
//	name: election2009
//	event: {start: 2009-09-27, end: 2009-09-27}
//	lead_time: P180D
//	cooldown_time: P30D
//	reference_documents:
//	  - url: https://de.wikipedia.org/wiki/Bundestagswahl_2009
//	    language: de
//	keywords: {de: [Bundestagswahl, Zweitstimme]}
//
// Load picks YAML or JSON by extension (else by content), and recognises the
// original authors' JSON format (seedUrls, referenceTime, referenceVectors,
// ...) by its camelCase fields; LoadOriginal documents its mapping. Both
// syntaxes are parsed into one YAML node tree (JSON is YAML). Every field is
// declared once, as a tagged field of Spec (schema.go lists the tags): the
// decoder reads the tree into Spec after the tags (known fields only, every
// value of its field's type), Validate checks every rule about values and
// between fields, and the tree serves only to give each problem its line.
// Every problem is reported at once with the file name, the line, the field
// path and the reason; unknown fields are errors (with a "did you mean" for
// near misses), in both formats. Defaults are written down once, in
// Defaults. Write and MarshalJSON produce the canonical format with every
// default filled in, which Parse reads back unchanged, so a run can record
// the specification it used.
//
// # Choices
//
//   - event.end is inclusive. A date stands for the whole day in UTC (as the
//     original, which starts days at midnight UTC); EventInterval returns the
//     half-open [start, end) with end the next midnight, or the date-time
//     plus one nanosecond. event.end defaults to event.start (a one-day
//     event). Date-times need an explicit offset.
//   - lead_time and cooldown_time are ISO-8601 durations and half-lives
//     (method.md §2). They are required, since a forgotten lead time would
//     silently make every earlier document irrelevant; P0D says "none".
//     Years and months have java.time's nominal lengths, 365.2425 days and a
//     twelfth of it (see Year and Month); weeks are 7 days, days 24 hours.
//   - keywords is a list (all languages) or a mapping from language, or "*"
//     for all languages, to a list; Keywords.For merges the two.
//   - seeds may be empty: then the outlinks of the reference documents are
//     the seeds, the paper's way; this needs a url or file reference document.
//   - allow/deny entries are host or domain names and match the name and all
//     its subdomains; deny wins; an empty allow list allows all hosts
//     (HostAllowed).
//   - default_language, when absent, is the first language named by
//     languages, the reference documents, or the keywords and reference
//     vectors (alphabetically), else "en".
//   - Relative paths (reference document files, dictionary) are relative to
//     the specification file; Load makes them absolute and checks that the
//     files exist and lie inside the specification's folder (or a folder
//     the caller allows), symbolic links resolved. Parse, which has no
//     file, leaves them as they are.
//   - Reference vectors and correction factors may be given precomputed (the
//     original format always has the former); scoring then uses them instead
//     of computing them from the reference documents.
package specs
