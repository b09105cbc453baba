package docfreq

import "testing"

func TestFileNames(t *testing.T) {
	for _, lang := range []string{"en", "de", "pt-br"} {
		if got, ok := LanguageOf(FileName(lang)); !ok || got != lang {
			t.Errorf("LanguageOf(FileName(%q)) = %q, %v", lang, got, ok)
		}
	}
	for _, name := range []string{"df-.tsv", "idf-en.tsv", "df-en.txt", "index.cdxj"} {
		if lang, ok := LanguageOf(name); ok {
			t.Errorf("LanguageOf(%q) = %q, want no language", name, lang)
		}
	}
}
