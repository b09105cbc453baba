package btindex

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/scoring"
)

// Document frequencies (the index pipeline's df-LANG.tsv counts) live in the
// capture table itself, per archive file, so that an index that grows file
// by file sums to the counts of one build of all its files, and a removed
// file's counts drop out:
//
//	row key   "~dff " LANG " " FILE "/" CHUNK   e.g. "~dff de night-1.warc.gz/000000"
//	family    Family, qualifier Column, cell time 0 (as capture rows)
//	value     "term<TAB>df" lines, unpruned, in no particular order
//	chunk 0   also cells Family:"n" (the number of chunks, written last)
//	          and Family:"d" (the documents of LANG in FILE)
//
// and the row "~settings" holds Family:"min_df", the --dictionary_min_df of
// the last run that counted documents. Reading a language's dictionary
// (ReadDictionary) sums the rows of the files the file list holds and has
// not removed, drops the terms under min_df, and writes the df-LANG.tsv
// bytes a single build of those files writes. A file's rows count only
// once it is listed (ListFile), after they are all written.
//
// A table written before the file list existed holds one dictionary per
// language instead (WriteDictionary), read when the table has no file list:
//
//	row key   "~df " LANG " " CHUNK   e.g. "~df de 000000"
//	value     bytes [CHUNK*DictionaryChunkBytes, …) of df-LANG.tsv
//	chunk 0   also a cell Family:"n" holding the number of chunks
const (
	// DictionaryPrefix starts the row keys of a whole-table dictionary. No
	// SURT key starts with "~" (they start with a host, an IP address or a
	// scheme), so these rows never answer a capture look-up.
	DictionaryPrefix = "~df "
	// FileDictionaryPrefix starts the row keys of the per-file counts.
	FileDictionaryPrefix = "~dff "
	// DictionaryChunkBytes is the size of one dictionary row's value: a
	// write stays under gRPC's default 4 MiB message limit.
	DictionaryChunkBytes = 1 << 20

	chunksColumn = "n"
	docsColumn   = "d"
	minDFColumn  = "min_df"
	settingsRow  = "~settings"
)

func fileDictionaryRow(lang, file string, chunk int) string {
	return fmt.Sprintf("%s%s %s/%06d", FileDictionaryPrefix, lang, file, chunk)
}

// parseFileDictionaryKey splits a per-file dictionary row key.
func parseFileDictionaryKey(key string) (lang, file string, chunk int, ok bool) {
	rest, ok := strings.CutPrefix(key, FileDictionaryPrefix)
	if !ok {
		return "", "", 0, false
	}
	lang, rest, ok = strings.Cut(rest, " ")
	i := strings.LastIndexByte(rest, '/')
	if !ok || i < 0 {
		return "", "", 0, false
	}
	chunk, err := strconv.Atoi(rest[i+1:])
	if err != nil {
		return "", "", 0, false
	}
	return lang, rest[:i], chunk, true
}

// FileDictionaryWriter writes the document frequencies of one language of
// one archive file (see above), in chunks: memory holds one chunk whatever
// the number of terms. Not safe for concurrent use.
type FileDictionaryWriter struct {
	tbl        *bigtable.Table
	lang, file string
	docs       int64
	buf        []byte
	chunks     int // chunks written, after chunk 0
}

// NewFileDictionaryWriter returns a writer of the counts of lang in file.
func NewFileDictionaryWriter(tbl *bigtable.Table, file, lang string) (*FileDictionaryWriter, error) {
	if lang == "" || strings.ContainsAny(lang, " \n/") {
		return nil, fmt.Errorf("bigtable dictionary: language %q is empty or contains a space or slash", lang)
	}
	if err := checkFileName(file); err != nil {
		return nil, fmt.Errorf("bigtable dictionary: %w", err)
	}
	return &FileDictionaryWriter{tbl: tbl, lang: lang, file: file}, nil
}

// AddDocs adds n documents of the language.
func (w *FileDictionaryWriter) AddDocs(n int64) { w.docs += n }

// Add adds df documents containing term.
func (w *FileDictionaryWriter) Add(ctx context.Context, term string, df int64) error {
	if term == "" || strings.ContainsAny(term, "\t\n") {
		return fmt.Errorf("bigtable dictionary %s of %s: term %q is empty or contains a tab or newline", w.lang, w.file, term)
	}
	line := term + "\t" + strconv.FormatInt(df, 10) + "\n"
	if len(w.buf)+len(line) > DictionaryChunkBytes && len(w.buf) > 0 {
		w.chunks++
		if err := w.apply(ctx, w.chunks, w.buf, false); err != nil {
			return err
		}
		w.buf = w.buf[:0]
	}
	w.buf = append(w.buf, line...)
	return nil
}

// Close writes chunk 0, with the chunk count and the documents: the other
// chunks are written before it, so a reader that sees it finds them all.
func (w *FileDictionaryWriter) Close(ctx context.Context) error {
	return w.apply(ctx, 0, w.buf, true)
}

func (w *FileDictionaryWriter) apply(ctx context.Context, chunk int, value []byte, last bool) error {
	m := bigtable.NewMutation()
	m.Set(Family, Column, cellTime, value)
	if last {
		m.Set(Family, chunksColumn, cellTime, []byte(strconv.Itoa(w.chunks+1)))
		m.Set(Family, docsColumn, cellTime, []byte(strconv.FormatInt(w.docs, 10)))
	}
	key := fileDictionaryRow(w.lang, w.file, chunk)
	if err := w.tbl.Apply(ctx, key, m); err != nil {
		return fmt.Errorf("bigtable dictionary %s of %s: write %s: %w", w.lang, w.file, key, err)
	}
	return nil
}

// WriteDictionaryMinDF stores the --dictionary_min_df the summed
// dictionaries are pruned with.
func WriteDictionaryMinDF(ctx context.Context, tbl *bigtable.Table, minDF int64) error {
	if minDF < 1 {
		return fmt.Errorf("bigtable dictionary: min_df %d: must be at least 1", minDF)
	}
	m := bigtable.NewMutation()
	m.Set(Family, minDFColumn, cellTime, []byte(strconv.FormatInt(minDF, 10)))
	if err := tbl.Apply(ctx, settingsRow, m); err != nil {
		return fmt.Errorf("bigtable dictionary: write min_df: %w", err)
	}
	return nil
}

// readMinDF returns the stored min_df, 1 when none is stored.
func readMinDF(ctx context.Context, tbl *bigtable.Table) (int64, error) {
	row, err := tbl.ReadRow(ctx, settingsRow, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		return 0, fmt.Errorf("bigtable dictionary: read %s: %w", settingsRow, err)
	}
	for _, item := range row[Family] {
		if item.Column == Family+":"+minDFColumn {
			n, err := strconv.ParseInt(string(item.Value), 10, 64)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("bigtable dictionary: row %s: min_df %q", settingsRow, item.Value)
			}
			return n, nil
		}
	}
	return 1, nil
}

// liveDictionaryFiles returns the listed, live files whose document
// frequencies are stored, and whether the table has a file list at all.
func liveDictionaryFiles(ctx context.Context, tbl *bigtable.Table) (map[string]bool, bool, error) {
	files, err := ReadFiles(ctx, tbl)
	if err != nil {
		return nil, false, err
	}
	live := map[string]bool{}
	for name, e := range files {
		if e.Live() && e.Dictionary {
			live[name] = true
		}
	}
	return live, len(files) > 0, nil
}

// sumFileDictionaries sums the per-file counts of lang over the files of
// live; nil when none of them has a document of lang.
func sumFileDictionaries(ctx context.Context, tbl *bigtable.Table, lang string, live map[string]bool) (*scoring.DocFreq, error) {
	sum := scoring.NewDocFreq(lang)
	found := false
	var perr error
	var file string
	want, seen := 0, 0
	done := func() error { // checks the chunks of the file just read
		if file != "" && seen != want {
			return fmt.Errorf("%s: %d of %d chunks of its counts (row %q)", file, seen, want, fileDictionaryRow(lang, file, 0))
		}
		return nil
	}
	err := tbl.ReadRows(ctx, bigtable.PrefixRange(FileDictionaryPrefix+lang+" "), func(row bigtable.Row) bool {
		_, f, chunk, ok := parseFileDictionaryKey(row.Key())
		if !ok {
			perr = fmt.Errorf("row %q: key is not \"~dff LANG FILE/CHUNK\"", row.Key())
			return false
		}
		if !live[f] {
			return true
		}
		if f != file {
			if perr = done(); perr != nil {
				return false
			}
			file, want, seen = f, -1, 0
		}
		if chunk == 0 {
			if want, perr = readChunkZero(row, sum); perr != nil {
				return false
			}
			found = true
		}
		if want < 0 {
			perr = fmt.Errorf("%s: no chunk 0 (row %q)", f, fileDictionaryRow(lang, f, 0))
			return false
		}
		if chunk >= want { // left by an earlier write of more chunks
			return true
		}
		seen++
		perr = addCountLines(sum, row)
		return perr == nil
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err == nil {
		err = perr
	}
	if err == nil {
		err = done()
	}
	if err != nil {
		return nil, fmt.Errorf("bigtable dictionary %s: %w", lang, err)
	}
	if !found {
		return nil, nil
	}
	return sum, nil
}

// readChunkZero adds the documents of chunk 0 to sum and returns the
// number of chunks.
func readChunkZero(row bigtable.Row, sum *scoring.DocFreq) (int, error) {
	chunks := -1
	for _, item := range row[Family] {
		switch item.Column {
		case Family + ":" + chunksColumn:
			n, err := strconv.Atoi(string(item.Value))
			if err != nil || n < 1 {
				return 0, fmt.Errorf("row %q: chunk count %q", row.Key(), item.Value)
			}
			chunks = n
		case Family + ":" + docsColumn:
			n, err := strconv.ParseInt(string(item.Value), 10, 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("row %q: document count %q", row.Key(), item.Value)
			}
			sum.AddCounts("", 0, n)
		}
	}
	if chunks < 0 {
		return 0, fmt.Errorf("row %q: no chunk count", row.Key())
	}
	return chunks, nil
}

// addCountLines adds the "term<TAB>df" lines of a chunk to sum.
func addCountLines(sum *scoring.DocFreq, row bigtable.Row) error {
	for _, item := range row[Family] {
		if item.Column != Family+":"+Column {
			continue
		}
		for line := range bytes.Lines(item.Value) {
			term, n, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte("\t"))
			df, err := strconv.ParseInt(string(n), 10, 64)
			if !ok || err != nil || len(term) == 0 {
				return fmt.Errorf("row %q: line %q is not term<TAB>df", row.Key(), line)
			}
			sum.AddCounts(string(term), df, 0)
		}
	}
	return nil
}

func dictionaryRow(lang string, chunk int) string {
	return fmt.Sprintf("%s%s %06d", DictionaryPrefix, lang, chunk)
}

// WriteDictionary stores the document-frequency file of one language (the
// bytes of df-LANG.tsv) in the table as a whole-table dictionary, replacing
// an earlier one: the chunk count written last says how many chunks are
// read back. It is read only while the table has no file list.
func WriteDictionary(ctx context.Context, tbl *bigtable.Table, lang string, data []byte) error {
	if lang == "" || strings.ContainsAny(lang, " \n") {
		return fmt.Errorf("bigtable dictionary: language %q is empty or contains a space", lang)
	}
	n := max(1, (len(data)+DictionaryChunkBytes-1)/DictionaryChunkBytes)
	var keys []string
	var muts []*bigtable.Mutation
	for i := range n {
		part := data[min(len(data), i*DictionaryChunkBytes):min(len(data), (i+1)*DictionaryChunkBytes)]
		m := bigtable.NewMutation()
		m.Set(Family, Column, cellTime, part)
		if i == 0 {
			m.Set(Family, chunksColumn, cellTime, []byte(strconv.Itoa(n)))
		}
		keys = append(keys, dictionaryRow(lang, i))
		muts = append(muts, m)
	}
	// Chunks after the first are written first: a reader that sees the new
	// count in chunk 0 finds all of them.
	for i := len(keys) - 1; i >= 0; i-- {
		if err := tbl.Apply(ctx, keys[i], muts[i]); err != nil {
			return fmt.Errorf("bigtable dictionary %s: write %s: %w", lang, keys[i], err)
		}
	}
	return nil
}

// DictionaryLanguages lists the languages whose document frequencies the
// table holds: of its live files, or of its whole-table dictionary when it
// has no file list.
func DictionaryLanguages(ctx context.Context, tbl *bigtable.Table) ([]string, error) {
	live, listed, err := liveDictionaryFiles(ctx, tbl)
	if err != nil {
		return nil, fmt.Errorf("bigtable dictionary languages: %w", err)
	}
	if listed {
		return fileDictionaryLanguages(ctx, tbl, live)
	}
	var langs []string
	err = tbl.ReadRows(ctx, bigtable.PrefixRange(DictionaryPrefix), func(row bigtable.Row) bool {
		lang, chunk, _ := strings.Cut(strings.TrimPrefix(row.Key(), DictionaryPrefix), " ")
		if chunk == dictionaryRow("", 0)[len(DictionaryPrefix)+1:] {
			langs = append(langs, lang)
		}
		return true
	}, bigtable.RowFilter(bigtable.StripValueFilter()))
	if err != nil {
		return nil, fmt.Errorf("bigtable dictionary languages: %w", err)
	}
	sort.Strings(langs)
	return langs, nil
}

// fileDictionaryLanguages lists the languages of the live files' counts.
func fileDictionaryLanguages(ctx context.Context, tbl *bigtable.Table, live map[string]bool) ([]string, error) {
	seen := map[string]bool{}
	err := tbl.ReadRows(ctx, bigtable.PrefixRange(FileDictionaryPrefix), func(row bigtable.Row) bool {
		if lang, file, chunk, ok := parseFileDictionaryKey(row.Key()); ok && chunk == 0 && live[file] {
			seen[lang] = true
		}
		return true
	}, bigtable.RowFilter(bigtable.StripValueFilter()))
	if err != nil {
		return nil, fmt.Errorf("bigtable dictionary languages: %w", err)
	}
	langs := make([]string, 0, len(seen))
	for l := range seen {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	return langs, nil
}

// ReadDictionary returns the document-frequency file (df-LANG.tsv) of one
// language, nil when the table holds none: the sum of the counts of the
// table's live files, pruned at the stored min_df, or, in a table without
// a file list, its whole-table dictionary.
func ReadDictionary(ctx context.Context, tbl *bigtable.Table, lang string) ([]byte, error) {
	live, listed, err := liveDictionaryFiles(ctx, tbl)
	if err != nil {
		return nil, fmt.Errorf("bigtable dictionary %s: %w", lang, err)
	}
	if !listed {
		return readWholeDictionary(ctx, tbl, lang)
	}
	sum, err := sumFileDictionaries(ctx, tbl, lang, live)
	if err != nil || sum == nil {
		return nil, err
	}
	minDF, err := readMinDF(ctx, tbl)
	if err != nil {
		return nil, err
	}
	sum.Prune(minDF)
	var buf bytes.Buffer
	if _, err := sum.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("bigtable dictionary %s: %w", lang, err)
	}
	return buf.Bytes(), nil
}

// readWholeDictionary reads the dictionary of a table without a file list.
func readWholeDictionary(ctx context.Context, tbl *bigtable.Table, lang string) ([]byte, error) {
	var chunks [][]byte
	want := -1
	var perr error
	err := tbl.ReadRows(ctx, bigtable.PrefixRange(DictionaryPrefix+lang+" "), func(row bigtable.Row) bool {
		var value []byte
		for _, item := range row[Family] {
			switch item.Column {
			case Family + ":" + Column:
				value = item.Value
			case Family + ":" + chunksColumn:
				n, err := strconv.Atoi(string(item.Value))
				if err != nil || n < 1 {
					perr = fmt.Errorf("row %q: chunk count %q", row.Key(), item.Value)
					return false
				}
				want = n
			}
		}
		chunks = append(chunks, value)
		return want < 0 || len(chunks) < want
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err == nil {
		err = perr
	}
	if err != nil {
		return nil, fmt.Errorf("bigtable dictionary %s: %w", lang, err)
	}
	if len(chunks) == 0 {
		return nil, nil
	}
	if want < 0 || len(chunks) < want {
		return nil, fmt.Errorf("bigtable dictionary %s: %d of %d chunks (row %q has no chunk count?)", lang, len(chunks), want, dictionaryRow(lang, 0))
	}
	var out []byte
	for _, c := range chunks[:want] {
		out = append(out, c...)
	}
	return out, nil
}

// Open connects to the table of an index spec's argument
// PROJECT/INSTANCE/TABLE (BIGTABLE_EMULATOR_HOST is honoured). Close the
// client when done.
func Open(ctx context.Context, spec string) (*bigtable.Client, *bigtable.Table, error) {
	parts := strings.Split(spec, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return nil, nil, fmt.Errorf("bigtable %q: want PROJECT/INSTANCE/TABLE", spec)
	}
	client, err := bigtable.NewClient(ctx, parts[0], parts[1])
	if err != nil {
		return nil, nil, fmt.Errorf("bigtable %q: %w", spec, err)
	}
	return client, client.Open(parts[2]), nil
}

// DictionaryPaths names the document-frequency files stored in the table of
// spec (PROJECT/INSTANCE/TABLE) by language, as the extraction names
// dictionary files: "bigtable:PROJECT/INSTANCE/TABLE#LANG" (read with
// ReadDictionaryPath). None is not an error.
func DictionaryPaths(ctx context.Context, spec string) (map[string]string, error) {
	client, tbl, err := Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	langs, err := DictionaryLanguages(ctx, tbl)
	if err != nil {
		return nil, fmt.Errorf("bigtable %q: %w", spec, err)
	}
	out := map[string]string{}
	for _, l := range langs {
		out[l] = "bigtable:" + spec + "#" + l
	}
	return out, nil
}

// IsDictionaryPath reports whether p names a dictionary stored in Bigtable.
func IsDictionaryPath(p string) bool {
	return strings.HasPrefix(p, "bigtable:") && strings.Contains(p, "#")
}

// ReadDictionaryPath reads a dictionary named by DictionaryPaths.
func ReadDictionaryPath(ctx context.Context, p string) ([]byte, error) {
	spec, lang, ok := strings.Cut(strings.TrimPrefix(p, "bigtable:"), "#")
	if !ok || !strings.HasPrefix(p, "bigtable:") {
		return nil, fmt.Errorf("%q: want bigtable:PROJECT/INSTANCE/TABLE#LANG", p)
	}
	client, tbl, err := Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	data, err := ReadDictionary(ctx, tbl, lang)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if data == nil {
		return nil, fmt.Errorf("%s: the table holds no document frequencies of %q", p, lang)
	}
	return data, nil
}
