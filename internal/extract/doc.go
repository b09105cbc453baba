// Package extract holds the pure logic of Algorithm 1 (event-centric
// collection extraction), shared by both engines of pipelines/extract: the
// sequential reference engine (one URL at a time) and the Beam rounds (K URLs
// per round). Nothing here imports Beam, so the engines cannot drift apart.
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
//	FetchRecord       read the record at its offset (fetch.go)
//	Score             main text, outlinks, document time → TopicR, TempR, TTR
//	MergeFrontier     unseen outlinks enter with the parent's priority
//
// Discovery order (the order of unfocused, breadth-first crawling, and the
// meaning of "first" discovery) is a number packed from (round, rank of the
// parent in its round, position of the link in the parent): with K = 1 it is
// exactly the order a sequential crawler discovers URLs in.
package extract
