package btindex

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestDictionaryRows: document frequencies stored beside the captures come
// back byte for byte (one chunk and several), a shorter rewrite replaces a
// longer one, the languages are listed, and capture look-ups never see the
// dictionary rows.
func TestDictionaryRows(t *testing.T) {
	ts := newTestServer(t)
	ctx := context.Background()
	if err := EnsureTable(ctx, ts.admin, "captures"); err != nil {
		t.Fatal(err)
	}
	tbl := ts.client.Open("captures")
	cs := genCaptures(50, 3)
	load(t, tbl, cs, 100)

	var big bytes.Buffer
	big.WriteString("#docs\t1000\n")
	for i := 0; big.Len() < 2*DictionaryChunkBytes+12345; i++ {
		fmt.Fprintf(&big, "term%08d\t%d\n", i, i%997+1)
	}
	small := []byte("#docs\t10\nhochwasser\t3\n")
	if err := WriteDictionary(ctx, tbl, "en", big.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := WriteDictionary(ctx, tbl, "de", big.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := WriteDictionary(ctx, tbl, "de", small); err != nil { // rewrite, shorter
		t.Fatal(err)
	}
	langs, err := DictionaryLanguages(ctx, tbl)
	if err != nil || !slices.Equal(langs, []string{"de", "en"}) {
		t.Fatalf("languages %v, %v; want [de en]", langs, err)
	}
	for lang, want := range map[string][]byte{"en": big.Bytes(), "de": small} {
		got, err := ReadDictionary(ctx, tbl, lang)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes written", lang, len(got), err, len(want))
		}
	}
	if got, err := ReadDictionary(ctx, tbl, "fr"); got != nil || err != nil {
		t.Errorf("fr: %d bytes, %v; want none", len(got), err)
	}
	if err := WriteDictionary(ctx, tbl, "d e", small); err == nil {
		t.Error("a language with a space was accepted")
	}

	keys := []string{"~df", "~df de", DictionaryPrefix}
	for _, c := range cs {
		keys = append(keys, c.Key)
	}
	got, err := NewReader(tbl, 0).Lookup(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	want := expected(cs)
	if len(got) != len(want) {
		t.Errorf("look-up of the capture keys and dictionary-like keys: %d keys answered, want %d", len(got), len(want))
	}
}
