package btindex

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cloud.google.com/go/bigtable"
)

// Document frequencies (the index pipeline's df-LANG.tsv files) live in the
// capture table itself, under a reserved row-key prefix (see the package
// doc, "Document frequencies"):
//
//	row key   "~df " LANG " " CHUNK   e.g. "~df de 000000"
//	family    Family, qualifier Column, cell time 0 (as capture rows)
//	value     bytes [CHUNK*DictionaryChunkBytes, …) of df-LANG.tsv
//	chunk 0   also a cell Family:"n" holding the number of chunks
const (
	// DictionaryPrefix starts the row keys of the document frequencies. No
	// SURT key starts with "~" (they start with a host, an IP address or a
	// scheme), so these rows never answer a capture look-up.
	DictionaryPrefix = "~df "
	// DictionaryChunkBytes is the size of one dictionary row's value: a
	// write stays under gRPC's default 4 MiB message limit.
	DictionaryChunkBytes = 1 << 20

	chunksColumn = "n"
)

func dictionaryRow(lang string, chunk int) string {
	return fmt.Sprintf("%s%s %06d", DictionaryPrefix, lang, chunk)
}

// WriteDictionary stores the document-frequency file of one language (the
// bytes of df-LANG.tsv) in the table, replacing an earlier one: the chunk
// count written last says how many chunks are read back.
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
// table holds.
func DictionaryLanguages(ctx context.Context, tbl *bigtable.Table) ([]string, error) {
	var langs []string
	err := tbl.ReadRows(ctx, bigtable.PrefixRange(DictionaryPrefix), func(row bigtable.Row) bool {
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

// ReadDictionary returns the document-frequency file of one language, nil
// when the table holds none.
func ReadDictionary(ctx context.Context, tbl *bigtable.Table, lang string) ([]byte, error) {
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
