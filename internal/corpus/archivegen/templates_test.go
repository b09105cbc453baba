package archivegen

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/scoring/document"
)

// TestTemplates renders one article of each site template and checks where
// its links to related articles end up for the main-text extractor
// (scoring/document): inside the main content only on the classic template;
// in boxes that main-text extraction removes on the others (the layouts on
// which a crawl of main-content links runs dry).
func TestTemplates(t *testing.T) {
	w, err := newWorld(7, 2000, DefaultEvents)
	if err != nil {
		t.Fatal(err)
	}
	w.assignTemplates()
	rd := newRenderer(w)
	seen := map[Template]bool{}
	for id := int64(0); id < w.pages && len(seen) < int(numTemplates); id++ {
		a := w.article(id)
		tpl := a.host.Template
		if a.wiki || seen[tpl] || a.words < 600 {
			continue
		}
		seen[tpl] = true
		page := rd.renderArticle(nil, &a, a.host.bucket(a.pub))
		doc, err := document.Parse(page, "text/html; charset=utf-8", a.url, document.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tpl, err)
		}
		r := newRNG(w.seed, streamLinks, uint64(a.id))
		related := w.relatedIDs(&a, &r, 4+r.intn(5))
		titles := map[string]bool{}
		for _, id := range related {
			titles[rd.article(id).title] = true
		}
		inMain, out := 0, 0
		for _, l := range doc.Outlinks {
			if !titles[l.Anchor] {
				continue
			}
			if l.InMain {
				inMain++
			} else {
				out++
			}
		}
		switch tpl {
		case TemplateClassic:
			if inMain == 0 {
				t.Errorf("classic: no related link in the main content (%d outside)", out)
			}
		case TemplateFooterFarm: // one link in the text
			if inMain > 1 || out == 0 {
				t.Errorf("%s: %d related links in the main content, %d outside; want at most 1 inside", tpl, inMain, out)
			}
		default:
			if inMain != 0 || out == 0 {
				t.Errorf("%s: %d related links in the main content, %d outside; want all outside", tpl, inMain, out)
			}
		}
		html := string(page)
		for tp, marker := range map[Template]string{
			TemplateAside: "related-stories", TemplateTeasers: `class="teaser-grid"`, TemplateFooterFarm: `class="footer-farm"`,
			TemplateAMPPrint: `rel="amphtml"`,
		} {
			if tp == tpl && !strings.Contains(html, marker) {
				t.Errorf("%s: no %s", tpl, marker)
			}
		}
		if tpl != TemplateClassic && len(a.host.navTopics) > 0 && !strings.Contains(html, `<li class="topic">`) {
			t.Errorf("%s: the navigation names no event topic", tpl)
		}
		if tpl == TemplateAMPPrint {
			for _, amp := range []bool{false, true} {
				v := string(rd.renderVariant(nil, &a, a.host.bucket(a.pub), amp))
				if !strings.Contains(v, `<link rel="canonical" href="`+a.url+`">`) {
					t.Errorf("variant (amp %v) of %s has no canonical link to it", amp, a.url)
				}
			}
		}
	}
	if len(seen) != int(numTemplates) {
		t.Fatalf("templates rendered: %v", seen)
	}
}

// TestTemplatesArchive generates a small archive with templates: every
// template has hosts and labelled articles, and the print and AMP variants
// are captured.
func TestTemplatesArchive(t *testing.T) {
	dir := t.TempDir()
	sum := generate(t, dir, Config{Pages: 300, Seed: 5, Templates: true})
	f, err := os.Open(filepath.Join(dir, LabelsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	if !strings.HasSuffix(sc.Text(), "\ttemplate") {
		t.Fatalf("labels header %q has no template column", sc.Text())
	}
	count := map[string]int{}
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		count[fields[len(fields)-1]]++
	}
	for _, name := range TemplateNames() {
		if count[name] == 0 {
			t.Errorf("no labelled article on a %s host: %v", name, count)
		}
	}
	variants := 0
	for _, k := range sum.Kinds {
		if k.Kind == "print-variant" || k.Kind == "amp-variant" {
			variants += int(k.Records)
		}
	}
	if variants == 0 {
		t.Error("no print or AMP variant captured")
	}
}
