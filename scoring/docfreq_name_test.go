package scoring

import (
	"path"
	"testing"
)

func TestDocFreqFileNames(t *testing.T) {
	for _, lang := range []string{"en", "de", "pt-br"} {
		name := DocFreqFileName(lang)
		if got, ok := DocFreqLanguage(name); !ok || got != lang {
			t.Errorf("DocFreqLanguage(DocFreqFileName(%q)) = %q, %v", lang, got, ok)
		}
		if ok, _ := path.Match(DocFreqFileGlob, name); !ok {
			t.Errorf("DocFreqFileGlob %q does not match %q", DocFreqFileGlob, name)
		}
	}
	for _, name := range []string{"df-.tsv", "idf-en.tsv", "df-en.txt", "index.cdxj"} {
		if lang, ok := DocFreqLanguage(name); ok {
			t.Errorf("DocFreqLanguage(%q) = %q, want no language", name, lang)
		}
	}
}
