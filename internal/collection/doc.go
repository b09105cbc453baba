// Package collection is the format of a collection's output directory
// (OUT): the names of the files an extraction writes there, the type of a
// line of each, and their writers and readers. The engines write through
// it; evaluation, reports, packaging (WACZ) and the link graph read
// through it; nothing else parses these files.
//
//	documents.jsonl     Document per line: the collected documents in collection order
//	listings.jsonl      Document per line: listing pages followed but not counted
//	                    (specs count_listing_pages: false; written only then)
//	missing.jsonl       Missing per line: URLs wanted but without a usable snapshot
//	links.tsv           Link per line: source, target, anchor, in_collection, after a header
//	rounds.jsonl        Round per line: the statistics of each round
//	run.json            RunInfo: spec, flags, versions, totals (indented JSON)
//	collection.warc.gz  the documents' records, unchanged (archive.WriteCollection)
//	collection.cdxj     its index, pywb's format (archive.WriteCollection)
//	collection.wacz     the collection packaged for replay (internal/wacz)
//	links.graphml       the link graph for Gephi (internal/linkgraph)
//
// Readers stream: a collection can hold 100,000 documents and more, so a
// file is read line by line (each at most MaxLineBytes), and every error
// names the file and the line.
package collection

// The files of a collection's output directory.
const (
	DocumentsFile = "documents.jsonl"
	ListingsFile  = "listings.jsonl"
	MissingFile   = "missing.jsonl"
	LinksFile     = "links.tsv"
	RoundsFile    = "rounds.jsonl"
	RunFile       = "run.json"
	WARCFile      = "collection.warc.gz"
	CDXJFile      = "collection.cdxj"
	WACZFile      = "collection.wacz"
	GraphMLFile   = "links.graphml"
)

// LinksHeader is the first line of links.tsv.
const LinksHeader = "source\ttarget\tanchor\tin_collection"
