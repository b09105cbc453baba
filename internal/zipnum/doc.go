// Package zipnum writes and reads ZipNum indexes, the sharded, block-compressed
// snapshot index format of the Internet Archive's wayback machine, pywb and
// Common Crawl.
//
// # Format
//
// A ZipNum index is a sorted CDX or CDXJ index cut into shards and blocks:
//
//   - Shard files (Common Crawl: cdx-00000.gz …) hold the sorted lines of one
//     part of the key space as a sequence of gzip members, one member per block
//     of up to 3000 lines (the default of pywb and Common Crawl), ended early
//     before it would inflate to more than [MaxBlockBytes]. Concatenated,
//     a shard is a valid multi-member gzip file: `zcat shard` prints its lines.
//   - The secondary index (cluster.idx; pywb also accepts *.summary) has one
//     line per block, in key order across all shards:
//     "FIRSTKEY FIRSTTIMESTAMP<TAB>shard<TAB>offset<TAB>length<TAB>seq", where
//     the first field is the "key timestamp" prefix of the block's first line,
//     offset and length locate the gzip member in the shard and seq numbers the
//     blocks from 1 across the whole index.
//   - The location file (cluster.loc, i.e. the secondary index's name with .loc)
//     maps a shard name to one or more paths, tab-separated, relative to the
//     location file (or absolute, or gs:// URIs); readers take the first that
//     opens (pywb's LocMapResolver).
//     Without a location file a shard is looked for next to the secondary index,
//     as in Common Crawl's layout.
//
// # Reading
//
// An index is read through internal/storage, so it may be local or on
// Google Cloud Storage (gs://bucket/prefix, as the index pipeline writes it
// there): every block read is one ranged read of exactly that gzip member.
//
// The secondary index is small (one line per 3000 captures: about 340,000
// lines for a billion captures) and is held in memory. A look-up of key K wants
// the lines in ["K ", "K!"): a byte-wise range, because ' ' < '!' and SURT keys
// contain neither character, so "com,example)/a" never picks up the lines of
// "com,example)/ab". The first block that can hold such a line is the one
// BEFORE the first block whose first key is >= "K ": the captures of one key
// can continue from the end of a block into the next ones. Only those blocks
// are read, each with one io.ReaderAt call, decompressed and searched with a
// binary search on their lines.
//
// Batched look-ups sort their keys first; the blocks they touch then come in
// increasing order, so each block is read and decompressed at most once per
// batch, and a few blocks ahead are decompressed in parallel (GOMAXPROCS at a
// time): decompression is the cost of a ZipNum look-up (about 1.5 ms for a
// block of 3000 CDXJ lines on this machine). A small LRU cache of decompressed
// blocks, bounded in bytes, makes repeated look-ups (the next batch of an
// extraction round, keys of one host) cheap. It cannot help uniformly random
// keys over an index much larger than the cache: a batch of 1000 such keys
// over a million captures touches nearly every block. The reader counts the
// compressed bytes and the blocks it reads, so tests can prove that it reads
// only what it needs.
//
// The secondary index is input like any other: a block must end within its
// shard file, its gzip member may not be longer than
// [MaxCompressedBlockBytes] and it may not inflate to more than
// [MaxBlockBytes]; otherwise the read is an error naming the shard file, the
// block's line and first key in the secondary index, and the limit.
//
// Lines may be CDXJ (pywb's "key timestamp {json}") or the classic 11-field
// CDX format of the Internet Archive and of the pywb sample (see [ParseLine]).
//
// # Writing
//
// [ShardWriter] takes the sorted lines of one shard, as the index pipeline
// produces them, writes one gzip member per block and returns the secondary
// index entries of its blocks. [WriteClusterIndex] concatenates the entries of
// all shards in shard order and numbers them; [WriteLoc] writes the location
// file. [Build] does all three for one sorted stream of lines.
package zipnum
