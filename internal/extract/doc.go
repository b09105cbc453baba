// Package extract holds the pure logic of Algorithm 1 (event-centric
// collection extraction), shared by both engines of pipelines/extract: the
// sequential reference engine (one URL at a time) and the Beam rounds (K URLs
// per round). Nothing here imports Beam, so the engines cannot drift apart,
// and nothing here opens an archive file: reading records and copying them
// into the collection WARC is internal/archive's.
//
// The state of an extraction (method.md §3):
//
//   - the frontier: URL (by SURT key) → best priority seen so far, and the
//     depth, path, URL and parent of its FIRST discovery (frontier.go);
//   - the collection and the missing URLs; seen = collection ∪ missing, and
//     every URL ever taken from the frontier is seen (a redirect too).
//
// One step for one URL (step.go):
//
//	SelectBatch       take the best entries of the frontier (topk.go: ties by
//	                  lower depth, then SURT key; unfocused: discovery order)
//	ResolveSnapshots  all captures of the URL from the snapshot index
//	SelectSnapshot    the usable capture closest to the event (select_snapshot.go)
//	FetchRecord       read the record at its offset (internal/archive's
//	                  Fetcher)
//	Score             main text, outlinks, document time → TopicR, TempR, TTR
//	MergeFrontier     unseen outlinks enter with the parent's priority (or
//	                  their own, see Focus)
//
// Discovery order (the order of unfocused, breadth-first crawling, and the
// meaning of "first" discovery) is a number packed from (round, rank of the
// parent in its round, position of the link in the parent): with K = 1 it is
// exactly the order a sequential crawler discovers URLs in.
//
// Focusing beyond the paper (Focus in step.go, specs.Focus): by default
// every outlink enters with its parent's relevance, priorities from several
// parents combine by their maximum, and every document counts. A
// specification can opt into the methods of the related systems: a
// per-outlink priority from the parent's relevance, the anchor text and the
// paragraph around the link (scoring.Scorer.LinkPriority) with the link's own
// TempR from a date in its URL; a temporal intent boost; the average or the
// latest parent's priority instead of the maximum (Merge, with fixed-point
// sums so that any merge order gives the same bits); a relevance gate on
// following outlinks (follow_threshold, calibrated on 60/40 splits of the
// reference documents by Job.CalibrateGate; seeds and listing pages are
// exempt); max_depth; and listing pages that are followed but not counted
// (OutcomeListing, written to listings.jsonl). Both engines get all of this
// from Score and Merge, so K = 1 still equals the sequential engine.
//
// Several archives at once (sources.go): a job may read several named
// archives (--index NAME=SPEC --archive NAME=LOCATIONS), each with its own
// index and file locations, e.g. a national archive plus a special
// collection. The index is then a multi-index (internal/lookup/multi.go)
// that tags every capture with its archive; the captures of a URL from all
// archives compete in SelectSnapshot under the same rule, a tie between
// captures taken at the same time going to the archive named first, and a
// revisit resolving to a payload of its own archive only (another archive's
// copy is another crawl). The fetcher (archive.Fetcher, made by
// Job.NewFetcher) looks for a capture's file in its own archive's
// locations, with the same safety checks. Each document records
// its archive (documents.jsonl's archive), run.json lists the archives with
// the documents taken from each, and without --dictionary the df-LANG.tsv
// files next to the archives' indexes are summed into one IDF. A single
// unnamed archive is the form without names, and its outputs carry no
// archive field: they are exactly those of an extraction before archives
// had names.
package extract
