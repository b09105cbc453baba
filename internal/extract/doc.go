// Package extract holds the pure logic of Algorithm 1 (event-centric
// collection extraction), shared by both engines of pipelines/extract: the
// sequential reference engine (one URL at a time) and the Beam rounds (K URLs
// per round). Nothing here imports Beam, so the engines cannot drift apart,
// and nothing here opens an archive file: reading records and copying them
// into the collection WARC is internal/archive's.
//
// The state of an extraction (method.md §3): the frontier, URL (by SURT key)
// → best priority seen so far, with the depth, path, URL and parent of its
// first discovery (frontier.go); the collection and the missing URLs; seen =
// collection ∪ missing. The logic of every step of a round is here (step.go,
// topk.go, select_snapshot.go); docs/architecture.md lists the steps and
// where each runs.
//
// Merge is commutative and associative and sums priorities in fixed point,
// so any merge order gives the same bits; discovery order is a number packed
// from (round, rank of the parent, position of the link), so with K = 1 it is
// exactly a sequential crawler's. The focusing options (Focus, specs.Focus)
// and the link model (learn.go) are functions of the frontier and the
// committed results, so K = 1 still equals the sequential engine.
//
// A job may read several named archives (sources.go): the captures of a URL
// from all of them compete in snapshot selection, and every document records
// the archive it came from.
package extract
