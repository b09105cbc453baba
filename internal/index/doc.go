// Package index is the plain Go that only the index pipeline uses
// (pipelines/index, transforms/index): one range of an archive file
// indexed, its skipped records logged (index_file.go), which captures the
// document-frequency dictionary counts (docfreq.go), the boundaries of
// key-range shards from a deterministic sample (shardsample.go), and the
// external sort that writes sorted runs and merges them (linesort.go). Like
// internal/extract for the extraction, it holds no Beam code: the same
// input gives the same bytes on every runner.
package index
