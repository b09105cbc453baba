package scoring

import (
	"reflect"
	"strings"
	"sync"
	"testing"
)

func mustAnalyzer(t testing.TB, lang string) *Analyzer {
	t.Helper()
	a, err := NewAnalyzer(lang)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func terms(tokens []Token) []string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		out[i] = tok.Term
	}
	return out
}

func TestLanguages(t *testing.T) {
	want := []string{"ar", "da", "de", "en", "es", "fi", "fr", "ga", "hu", "it", "nl", "no", "pt", "ro", "ru", "sv", "ta", "tr"}
	if got := Languages(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Languages() = %v, want %v", got, want)
	}
}

// One stemmed sample per language, to show every analyzer is wired to its
// own stemmer and stop list.
func TestEveryLanguageStems(t *testing.T) {
	tests := []struct{ lang, text, want string }{
		{"ar", "المدرسة في", "مدرس"},
		{"da", "løbende og hustruer", "løb hustru"},
		{"de", "die Bundestagswahlen und Häuser", "bundestagswahl haus"},
		{"en", "the running elections", "run elect"},
		{"es", "las elecciones y corriendo", "eleccion corr"},
		{"fi", "kirjoissa ja taloissa", "kirj talo"},
		{"fr", "les élections nationales", "élect national"},
		{"ga", "agus d'fhág", "fág"},
		{"hu", "a választások", "választás"},
		{"it", "le elezioni nazionali", "elezion nazional"},
		{"nl", "de verkiezingen", "verkiez"},
		{"no", "valgene og huset", "valg hus"},
		{"pt", "as eleições nacionais", "eleiçõ nacion"},
		{"ro", "alegerile și", "aleger"},
		{"ru", "выборы и президента", "выбор президент"},
		{"sv", "valen och husen", "val hus"},
		{"ta", "தேர்தல்கள் மற்றும்", "தேர்தல்"},
		{"tr", "seçimlerde ve evlerimiz", "seçim ev"},
	}
	for _, tt := range tests {
		got := strings.Join(terms(mustAnalyzer(t, tt.lang).Analyze(tt.text)), " ")
		if got != tt.want {
			t.Errorf("%s: Analyze(%q) = %q, want %q", tt.lang, tt.text, got, tt.want)
		}
	}
}

// German: the original folded umlauts and ß. Inflected and derived forms
// with and without umlaut meet in one stem, and no stem keeps an umlaut.
func TestGermanUmlautFolding(t *testing.T) {
	a := mustAnalyzer(t, "de")
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"Wahlen", "Wähler", "Wählern", "wählen", "Wahl", "WÄHLER"}, "wahl"},
		{[]string{"Straße", "Strasse", "STRASSE", "Straßen"}, "strass"},
		{[]string{"Schröder", "Schroder", "Schröders"}, "schrod"},
		{[]string{"Kapitän", "Kapitan", "Kapitäne"}, "kapitan"},
		{[]string{"Müller", "Muller"}, "mull"},
		{[]string{"Unglücksstelle"}, "unglucksstell"},
		{[]string{"Küstenwache"}, "kustenwach"},
	}
	for _, tt := range tests {
		for _, w := range tt.words {
			got := terms(a.Analyze(w))
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("Analyze(%q) = %v, want [%s]", w, got, tt.want)
			}
		}
	}
	text := "Über die Größe der Fußgängerzone in Köln wurde während der Sitzung äußerst heftig gestritten; Bürger, Händler und Ärzte äußerten sich."
	for _, term := range terms(a.Analyze(text)) {
		if strings.ContainsAny(term, "äöüßÄÖÜ") {
			t.Errorf("stem %q keeps an umlaut or ß", term)
		}
	}
}

func TestStopWords(t *testing.T) {
	tests := []struct{ lang, text, want string }{
		{"de", "Die Wahl des Bundestags ist für den Herbst geplant", "wahl bundestag herb geplant"},
		{"en", "The eruption of the volcano was not expected", "erupt volcano expect"},
		{"en", "They don't know it's over", "know"},
		{"fr", "L'éruption du volcan n'était pas prévue", "érupt volcan prévu"},
	}
	for _, tt := range tests {
		got := strings.Join(terms(mustAnalyzer(t, tt.lang).Analyze(tt.text)), " ")
		if got != tt.want {
			t.Errorf("%s: Analyze(%q) = %q, want %q", tt.lang, tt.text, got, tt.want)
		}
	}
	a := mustAnalyzer(t, "de")
	if !a.IsStopWord("für") || a.IsStopWord("wahl") {
		t.Error("IsStopWord disagrees with the German list")
	}
}

func TestTokenization(t *testing.T) {
	tests := []struct {
		name, lang, text string
		want             []Token
	}{
		{"stop word breaks adjacency", "de", "Wahl des Bundestags",
			[]Token{{"wahl", 0}, {"bundestag", 2}}},
		{"adjacent words", "en", "Costa Concordia",
			[]Token{{"costa", 0}, {"concordia", 1}}},
		{"comma breaks adjacency", "en", "Costa, Concordia",
			[]Token{{"costa", 0}, {"concordia", 2}}},
		{"sentence end breaks adjacency", "en", "Volcano. Eruption! Ash? Cloud",
			[]Token{{"volcano", 0}, {"erupt", 2}, {"ash", 4}, {"cloud", 6}}},
		{"line break breaks adjacency", "en", "Volcano\nEruption",
			[]Token{{"volcano", 0}, {"erupt", 2}}},
		{"hyphen splits without breaking", "de", "Baden-Württemberg",
			[]Token{{"bad", 0}, {"wurttemberg", 1}}},
		{"quotes and brackets do not break", "en", `"Costa" (Concordia)`,
			[]Token{{"costa", 0}, {"concordia", 1}}},
		{"single characters are dropped but take a position", "en", "Formula 1 race",
			[]Token{{"formula", 0}, {"race", 2}}},
		{"numbers keep decimal separators", "en", "3.5 million in 2012",
			[]Token{{"3.5", 0}, {"million", 1}, {"2012", 3}}},
		{"soft hyphen is invisible", "de", "Bundes\u00adtag",
			[]Token{{"bundestag", 0}}},
		{"English possessive", "en", "Europe’s volcano",
			[]Token{{"europ", 0}, {"volcano", 1}}},
		{"French elision", "fr", "l'élection d'aujourd'hui",
			[]Token{{"élect", 0}, {"aujourd'hui", 1}}},
		{"Italian elision", "it", "dell'anno",
			[]Token{{"anno", 0}}},
		{"German keeps the part before an apostrophe", "de", "Wie geht's",
			[]Token{{"geht", 1}}},
		{"Turkish proper noun with case suffix", "tr", "Türkiye'nin İSTANBUL'da",
			[]Token{{"türki", 0}, {"istanbul", 1}}},
		{"Turkish dotless i", "tr", "IRMAK",
			[]Token{{"ırmak", 0}}},
		{"decomposed umlaut is composed", "de", "Wa\u0308hler",
			[]Token{{"wahl", 0}}},
		{"overlong words are dropped", "en", "volcano " + strings.Repeat("x", 65) + " ash",
			[]Token{{"volcano", 0}, {"ash", 2}}},
		{"no words", "en", " -- ... !! ", nil},
	}
	for _, tt := range tests {
		got := mustAnalyzer(t, tt.lang).Analyze(tt.text)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Analyze(%q) = %v, want %v", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestNormalizeLanguage(t *testing.T) {
	tests := map[string]string{"de": "de", "DE-de": "de", "de_AT": "de", "nb": "no", "nn-NO": "no", " en ": "en", "zh-Hans": "zh", "": ""}
	for in, want := range tests {
		if got := NormalizeLanguage(in); got != want {
			t.Errorf("NormalizeLanguage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnalyzersFallBackToDefault(t *testing.T) {
	as, err := NewAnalyzers("de")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{"de": "de", "en-GB": "en", "nb": "no", "zh": "de", "": "de", "xx": "de"}
	for lang, want := range tests {
		if got := as.For(lang).Language(); got != want {
			t.Errorf("For(%q) = %s, want %s", lang, got, want)
		}
	}
	if _, err := NewAnalyzers("zh"); err == nil {
		t.Error("NewAnalyzers(zh) succeeded, want an error: no analyzer for the default language")
	}
	if _, err := NewAnalyzer("xx"); err == nil {
		t.Error("NewAnalyzer(xx) succeeded")
	}
}

// The stem cache and the pooled scratch must not leak between concurrent
// callers.
func TestAnalyzerConcurrent(t *testing.T) {
	a := mustAnalyzer(t, "de")
	texts := []string{
		"Die Wahlen zum Bundestag fanden im September statt.",
		"Das Kreuzfahrtschiff Costa Concordia lief vor Giglio auf Grund.",
		"Der Vulkan Eyjafjallajökull brach im April aus.",
	}
	want := make([][]Token, len(texts))
	for i, text := range texts {
		want[i] = a.Analyze(text)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				i := (g + n) % len(texts)
				if got := a.Analyze(texts[i]); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("concurrent Analyze(%q) = %v, want %v", texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
