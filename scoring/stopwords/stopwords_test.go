package stopwords

import (
	"reflect"
	"testing"
)

func TestLanguages(t *testing.T) {
	want := []string{"ar", "da", "de", "en", "es", "fi", "fr", "ga", "hu", "it", "nl", "no", "pt", "ro", "ru", "sv", "ta", "tr"}
	if got := Languages(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Languages() = %v, want %v", got, want)
	}
}

func TestEveryListLoads(t *testing.T) {
	for _, lang := range Languages() {
		set, err := Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(set) < 40 {
			t.Errorf("%s: only %d stop words", lang, len(set))
		}
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		lang     string
		stop     []string
		content  []string
		wantFail bool
	}{
		{lang: "de", stop: []string{"der", "und", "für", "über", "daß", "dass"}, content: []string{"wahl", "bundestag", "#"}},
		{lang: "en", stop: []string{"the", "of", "don't", "would"}, content: []string{"election", "people"}},
		{lang: "fr", stop: []string{"le", "la", "qu", "être", "où"}, content: []string{"élection"}},
		{lang: "tr", stop: []string{"ve", "için", "bir"}, content: []string{"seçim"}},
		{lang: "xx", wantFail: true},
	}
	for _, tt := range tests {
		set, err := Load(tt.lang)
		if tt.wantFail {
			if err == nil {
				t.Errorf("Load(%q) succeeded, want an error", tt.lang)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.stop {
			if _, ok := set[w]; !ok {
				t.Errorf("%s: %q should be a stop word", tt.lang, w)
			}
		}
		for _, w := range tt.content {
			if _, ok := set[w]; ok {
				t.Errorf("%s: %q should not be a stop word", tt.lang, w)
			}
		}
	}
}
