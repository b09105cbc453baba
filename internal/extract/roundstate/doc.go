// Package roundstate owns the format of an extraction's work directory
// (--work): where each round's state lives, the part files and the manifest
// that names them, the seen set, the DONE and FINISHED markers and the job
// the directory belongs to. It is plain Go: the driver, the sequential
// engine and the Beam round (transforms/round) all read and write the state
// through it.
//
// Only the files a manifest names are state, so a part file of a bundle that
// a runner retried is an orphan nobody reads. Nothing is rewritten after its
// round, and every file is written atomically: a SIGKILL at any point leaves
// either a complete state or one without DONE, which is deleted and run
// again. Part files are gob streams of extract.Result or extract.Entry. The
// layout is in docs/formats.md.
package roundstate
