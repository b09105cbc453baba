package document

import "testing"

func TestIdentifyLanguage(t *testing.T) {
	const (
		en = "The committee met on Tuesday to discuss the budget for the next year, and the members agreed that the money for schools should not be cut."
		de = "Der Ausschuss hat am Dienstag über den Haushalt für das kommende Jahr beraten, und die Mitglieder waren sich einig, dass bei den Schulen nicht gekürzt werden soll."
		fr = "Le comité s'est réuni mardi pour discuter du budget de l'année prochaine, et les membres ont convenu que les crédits pour les écoles ne seraient pas réduits."
		pl = "Komisja zebrała się we wtorek, aby omówić budżet na przyszły rok, a jej członkowie zgodzili się, że pieniądze na szkoły nie powinny zostać obcięte."
	)
	cases := []struct {
		name, title, text, hint, def string
		want, wantSource             string
	}{
		{"english", "", en, "", "de", "en", LanguageFromText},
		{"german", "", de, "", "en", "de", LanguageFromText},
		{"french", "", fr, "", "en", "fr", LanguageFromText},
		{"polish via whatlanggo", "", pl, "", "en", "pl", LanguageFromText},
		{"text beats wrong html lang", "", de, "en-US", "en", "de", LanguageFromText},
		{"short text uses html lang", "", "Kontakt", "de-DE", "en", "de", LanguageFromMarkup},
		{"short text, no hint: default", "", "OK", "", "de", "de", LanguageFromDefault},
		{"short text, invalid hint: default", "", "OK", "x-klingon", "en", "en", LanguageFromDefault},
		{"mixed, mostly German", "", de + " " + de + " Quote: the money for schools should not be cut.", "", "en", "de", LanguageFromText},
		{"nothing at all", "", "", "", "", "", ""},
	}
	for _, c := range cases {
		lang, src, conf := identifyLanguage(c.title, c.text, c.hint, Options{DefaultLanguage: c.def})
		if lang != c.want || src != c.wantSource {
			t.Errorf("%s: got %q from %q (confidence %.2f), want %q from %q", c.name, lang, src, conf, c.want, c.wantSource)
		}
		if src == LanguageFromText && (conf < minLanguageConfidence || conf > 1) {
			t.Errorf("%s: confidence %.2f outside [%.2f, 1]", c.name, conf, minLanguageConfidence)
		}
	}
}

// TestLanguageOfLabelledPages: every labelled page gets its language.
func TestLanguageOfLabelledPages(t *testing.T) {
	for _, lp := range labelledPages {
		doc, err := Parse(lp.html(t), lp.ctype, lp.url, Options{DefaultLanguage: "fr"})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Language != lp.lang || doc.LanguageSource != LanguageFromText {
			t.Errorf("%s: %s from %s, want %s", lp.name, doc.Language, doc.LanguageSource, lp.lang)
		}
	}
}

func TestNormalizeLanguage(t *testing.T) {
	for in, want := range map[string]string{"de-DE": "de", "en_US": "en", "DE": "de", "deu": "de", "ger": "de", "": "", "x-klingon": "", "english": ""} {
		if got := normalizeLanguage(in); got != want {
			t.Errorf("normalizeLanguage(%q) = %q, want %q", in, got, want)
		}
	}
}
