// Package archive reads and copies the files of a web archive (WARC and
// ARC, local or gs://): plain Go that the Beam steps, both extraction
// engines and the tests call alike. It knows files, offsets and records,
// nothing of Algorithm 1 (internal/extract imports it, not the reverse).
//
//   - Fetcher (fetch.go): the record an index capture names, looked for in
//     the locations of the capture's archive, with an LRU of open files and
//     ranged reads of gs:// files. A record that is not where the index
//     says, is damaged or lies outside the locations is a *RecordError
//     whose Kind is the URL's reason code; a file in no location is
//     ErrArchiveFileMissing.
//   - SafeFilename (safe_filename.go): an index filename is checked before
//     any file is opened; a symbolic link out of a location is refused too.
//   - CopyRawRecord (raw_record.go): one record streamed unchanged as one
//     gzip member.
//   - WriteCollection (collection.go): the records of a collection, given
//     as plain locations (Record), copied into collection.warc.gz and
//     indexed into collection.cdxj.
package archive
