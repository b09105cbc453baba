// Package transforms holds recrawl's Beam DoFns and composite transforms:
// the Beam edge of the system. Each composite is named after the step of the
// method it implements and calls plain Go code from internal/ and scoring/
// that tests can run without a pipeline.
//
// Snapshot index (pipelines/index), in pipeline order:
//
//	IndexArchives   archive files → CDXJ lines (index_archives.go)
//	SortIntoShards  CDXJ lines → key-range shards, each sorted (sort_shards.go)
//	WriteCDXJ       sorted shards → INDEX_DIR/index.cdxj (write_cdxj.go)
//	WriteZipNum     sorted shards → ZipNum shards + cluster.idx (write_zipnum.go)
//	WriteBigtable   CDXJ lines → Bigtable rows (write_bigtable.go)
//	CountDocumentFrequencies  CDXJ lines → (language, term, df) of the
//	                HTML documents, read back from the archive (document_frequencies.go)
//	WriteDocumentFrequencies  → INDEX_DIR/df-<lang>.tsv (document_frequencies.go)
//
// Every DoFn is registered in the init() of its file, heavy clients are
// created in Setup, and every skipped or failed element increments a
// beam.NewCounter in the namespace of its step, so a run's summary says what
// was lost and why.
package transforms
