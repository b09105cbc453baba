// Package roundstate owns the format of an extraction's work directory
// (--work): where each round's state lives, the part files and the manifest
// that names them, the seen set, the DONE and FINISHED markers and the job
// the directory belongs to. It is plain Go: the driver, the sequential
// engine and the Beam round (transforms/round) all read and write the state
// through it.
//
// The layout:
//
//	job.json                 the job this state belongs to
//	state-00000/             the initial state: the seeds
//	state-NNNNN/             the state after N rounds:
//	    round.manifest         the state's part files, "kind<TAB>path<TAB>count"
//	                           (kind results or frontier), sorted
//	    results/part-*.gob     round N-1's results (extract.Result), one gob stream
//	                           per bundle, in no order: ReadResults sorts them by rank
//	    frontier/part-*.gob    the whole frontier after round N-1 (extract.Entry)
//	    seen.txt               the SURT keys round N-1 took (its batch), sorted:
//	                           the seen set after N rounds is the union of the
//	                           seen.txt of states 0..N (state 0's is empty)
//	    round.json             round N-1's statistics
//	    DONE                   written last: the state is complete
//	FINISHED                 the outputs were written
//
// Only the files a manifest names are state: a part file of a bundle that a
// runner retried is an orphan nobody reads. Nothing is rewritten after its
// round: the seen set grows by one file per round (a round's cost does not
// grow with the run), and a worker process keeps the set it read for the
// next round (LoadSeen). A state without DONE is an interrupted round: it is
// deleted and the round runs again, from the last complete state. Every file
// is written atomically, so a SIGKILL at any point leaves either a complete
// state or one without DONE.
//
// A part file is a gob stream of one type (extract.Result or extract.Entry):
// decoding it costs a fraction of JSON's, and a field added to either type is
// simply carried along (gob matches fields by name). The driver reads every
// result back once per round, and a round reads the frontier twice.
package roundstate
