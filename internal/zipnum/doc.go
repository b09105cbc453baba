// Package zipnum writes and reads ZipNum indexes, the sharded,
// block-compressed snapshot index format of the Internet Archive's wayback
// machine, pywb and Common Crawl: shard files of sorted CDX or CDXJ lines
// as one gzip member per block of up to 3000 lines, a secondary index
// (cluster.idx) with one line per block, and a location file (cluster.loc)
// that maps shard names to paths.
//
// An index is read through internal/storage, so it may be local or on
// gs://; a block read is one ranged read of its gzip member, or of a run of
// adjacent members. The secondary index is held in memory. A look-up of key
// K reads only the blocks that can hold lines in ["K ", "K!"). A batch of
// look-ups sorts its keys and maps them to blocks, so each block is read and
// inflated at most once per batch however many keys it answers: blocks that
// lie end to end in a shard come in one read of up to 1 MiB, and a block is
// inflated only as far as its first line past the last key it answers (its
// gzip trailer is then not checked). A block this package writes is
// compressed in segments of [DefaultLinesPerSegment] lines, each from an
// empty dictionary, with an index of the segments in the gzip header's
// extra field that other gzip readers skip: a look-up then inflates only
// the segments that hold its keys (segments.go; docs/formats.md,
// "Segments"). Blocks without that index (pywb's, the Internet Archive's)
// are read as described above. Blocks inflate with the engine of
// internal/inflate (pure Go, or ISA-L with -tags isal). A byte-bounded LRU
// cache keeps inflated blocks, or their first lines, for the next batch.
// The reader counts the blocks and bytes it reads and inflates, so tests can
// prove that it reads only what it needs.
//
// The secondary index is input like any other: a block must end within its
// shard file, its gzip member may be at most [MaxCompressedBlockBytes] long
// and inflate to at most [MaxBlockBytes]; otherwise the read is an error
// naming the shard file, the block's line and first key, and the limit.
//
// ShardWriter writes one shard's blocks and returns their secondary index
// entries; WriteClusterIndex and WriteLoc write the other two files; Build
// does all three for one sorted stream. The format in detail:
// docs/formats.md.
package zipnum
