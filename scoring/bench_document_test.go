package scoring_test

// The per-document benchmark of the extraction step (scripts/bench.sh
// document): documents per second per core for the whole step (decode,
// parse, main text, links, date, language, vector, cosine) on real-sized
// HTML pages, beside the bare golang.org/x/net/html.Parse of the same bytes
// in the same run. Target: the whole step within 3x the bare parse.
//
//	GOMAXPROCS=1 go test ./scoring -run '^$' -bench 'BenchmarkDocumentStep$' -count 5
//
// The pages are the article pages of a small archive generated in-process by
// internal/corpus/archivegen (all its layouts, English and German, UTF-8 and
// Latin-1), read back through internal/records as the extraction reads them,
// and brought to real-world sizes of 30-100 KB (archivegen's pages are
// 10-20 KB) with what makes real news pages heavy: inline scripts and styles
// in the head and link-heavy mega menus and site maps in the body. The
// scorer is built exactly as a worker builds it (internal/extract.Job) from
// the archive's own specification of the 2009 federal election, with idf
// dictionaries of document frequencies counted over the archive's pages.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/specs"
)

type benchDoc struct {
	url, contentType string
	capture          time.Time
	body             []byte
}

type docFixture struct {
	pages    []benchDoc // padded to 30-100 KB
	raw      []benchDoc // the same pages as archivegen writes them (10-20 KB)
	bytes    int64
	scorer   *scoring.Scorer
	settings extract.Settings
}

const (
	benchDocPages   = 200 // pages in the benchmark (cycled)
	benchDocArchive = 700 // article pages of the generated archive (document frequencies)
	benchDocSpec    = "federal-election-2009"
)

var (
	docFixtureOnce sync.Once
	docFix         *docFixture
	docFixErr      error
)

func getDocFixture(b *testing.B) *docFixture {
	b.Helper()
	docFixtureOnce.Do(func() { docFix, docFixErr = buildDocFixture() })
	if docFixErr != nil {
		b.Fatal(docFixErr)
	}
	return docFix
}

func buildDocFixture() (*docFixture, error) {
	dir, err := os.MkdirTemp("", "recrawl-docbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := archivegen.Generate(context.Background(), archivegen.Config{OutDir: dir, Pages: benchDocArchive, Seed: 7, Workers: 1}); err != nil {
		return nil, err
	}
	articles, err := readArticleURLs(filepath.Join(dir, "labels.tsv"))
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	var all []benchDoc
	for _, name := range files {
		docs, err := readArticles(name, articles)
		if err != nil {
			return nil, err
		}
		all = append(all, docs...)
	}
	if len(all) < benchDocPages {
		return nil, fmt.Errorf("only %d article pages in the generated archive", len(all))
	}

	spec, err := specs.Load(filepath.Join(dir, "specs", benchDocSpec+".yaml"))
	if err != nil {
		return nil, err
	}
	// Document frequencies over every article of the archive, per language,
	// written and read back as the index pipeline's df-LANG.tsv files.
	analyzers, err := scoring.NewAnalyzers(spec.DefaultLanguage)
	if err != nil {
		return nil, err
	}
	dfs := map[string]*scoring.DocFreq{}
	for _, d := range all {
		doc, err := document.Parse(d.body, d.contentType, d.url, document.Options{DefaultLanguage: spec.DefaultLanguage})
		if err != nil {
			continue
		}
		a := analyzers.For(doc.Language)
		df := dfs[a.Language()]
		if df == nil {
			df = scoring.NewDocFreq(a.Language())
			dfs[a.Language()] = df
		}
		df.AddDocument(scoring.BagOf(a.Analyze(doc.Text())))
	}
	job := &extract.Job{Spec: spec, Dictionaries: map[string]string{}}
	for lang, df := range dfs {
		p := filepath.Join(dir, "df-"+lang+".tsv")
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		if _, err := df.WriteTo(f); err != nil {
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		job.Dictionaries[lang] = p
	}
	for _, rd := range spec.ReferenceDocuments {
		if rd.Text != "" {
			job.References = append(job.References, scoring.ReferenceText{Text: rd.Text, Language: rd.Language})
		}
	}
	scorer, err := job.NewScorer(context.Background())
	if err != nil {
		return nil, err
	}

	fx := &docFixture{scorer: scorer, settings: job.Settings()}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range benchDocPages {
		d := all[i*len(all)/benchDocPages]
		fx.raw = append(fx.raw, d)
		d.body = padPage(d.body, 30<<10+rng.IntN(70<<10), rng)
		fx.pages = append(fx.pages, d)
		fx.bytes += int64(len(d.body))
	}
	return fx, nil
}

// readArticleURLs returns the article URLs of labels.tsv.
func readArticleURLs(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		u, _, _ := strings.Cut(line, "\t")
		out[u] = true
	}
	return out, nil
}

// readArticles returns the 200 HTML responses of article pages in a WARC
// file, their bodies decoded from transfer and content codings as the
// extraction's fetcher reads them (records.ReadRecordAt).
func readArticles(name string, articles map[string]bool) ([]benchDoc, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	it, err := records.NewIterator(f, filepath.Base(name), nil)
	if err != nil {
		return nil, err
	}
	type loc struct{ off, n int64 }
	var locs []loc
	for {
		rec, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		ok := rec.Type == "response" && rec.HTTP != nil && rec.HTTP.StatusCode() == "200" && articles[rec.TargetURI]
		if err := it.Finish(); err != nil {
			return nil, err
		}
		if ok {
			locs = append(locs, loc{rec.Offset, rec.Length})
		}
	}
	var docs []benchDoc
	for _, l := range locs {
		rec, err := records.ReadRecordAt(f, l.off, l.n, filepath.Base(name))
		if err != nil {
			return nil, err
		}
		capture, err := extract.CaptureTime(rec.Timestamp)
		if err != nil {
			return nil, err
		}
		docs = append(docs, benchDoc{url: rec.TargetURI, contentType: rec.HTTP.Header.Get("Content-Type"), capture: capture, body: rec.Body})
	}
	return docs, nil
}

// padPage brings an archivegen page to about size bytes the way real news
// pages are heavy: about 55 % of the added bytes are inline scripts and
// styles in the head (tag-manager configuration, ad slots, CSS), 45 % are
// link lists in the body (a mega menu after the opening body tag and a
// site map before the closing one). None of it is article text.
func padPage(page []byte, size int, rng *rand.Rand) []byte {
	extra := size - len(page)
	if extra <= 0 {
		return page
	}
	var head, top, bottom bytes.Buffer
	head.WriteString("<script>\nwindow.dataLayer=window.dataLayer||[];\n")
	for i := 0; head.Len() < extra*35/100; i++ {
		fmt.Fprintf(&head, "googletag.defineSlot('/%d/news/section-%d',[[300,250],[728,90]],'div-gpt-ad-%d').setTargeting('pos',['%d']).addService(googletag.pubads());\n",
			1000+rng.IntN(9000), i%40, 100000+rng.IntN(900000), i)
	}
	head.WriteString("</script>\n<style>\n")
	for i := 0; head.Len() < extra*55/100; i++ {
		fmt.Fprintf(&head, ".c-%d .m-%d>a:hover,.t%d{margin:%dpx %dpx;padding:0 %dpx;color:#%06x;font:%dpx/1.4 Georgia,serif}\n",
			i, rng.IntN(50), i, rng.IntN(20), rng.IntN(20), rng.IntN(9), rng.IntN(1<<24), 10+rng.IntN(12))
	}
	head.WriteString("</style>\n")
	sections := []string{"politics", "world", "business", "sport", "culture", "science", "travel", "opinion", "local", "weather"}
	top.WriteString(`<div class="mega-menu" role="navigation"><ul>`)
	for i := 0; top.Len() < extra*20/100; i++ {
		s := sections[i%len(sections)]
		fmt.Fprintf(&top, `<li class="menu-item"><a href="/%s/topic-%d/" class="menu-link">%s topic %d</a></li>`, s, rng.IntN(500), strings.ToUpper(s[:1])+s[1:], i)
	}
	top.WriteString("</ul></div>\n")
	bottom.WriteString(`<div class="sitemap"><ul>`)
	for i := 0; bottom.Len() < extra*25/100; i++ {
		s := sections[rng.IntN(len(sections))]
		fmt.Fprintf(&bottom, `<li><a href="/%s/archive/%d/%02d/">%s archive %d</a></li>`, s, 2000+rng.IntN(12), 1+rng.IntN(12), s, i)
	}
	bottom.WriteString("</ul></div>\n")

	out := make([]byte, 0, size+1024)
	rest := page
	if i := bytes.Index(rest, []byte("</head>")); i >= 0 {
		out = append(out, rest[:i]...)
		out = append(out, head.Bytes()...)
		rest = rest[i:]
	}
	if i := bytes.Index(rest, []byte("<body")); i >= 0 {
		if j := bytes.IndexByte(rest[i:], '>'); j >= 0 {
			out = append(out, rest[:i+j+1]...)
			out = append(out, top.Bytes()...)
			rest = rest[i+j+1:]
		}
	}
	if i := bytes.LastIndex(rest, []byte("</body>")); i >= 0 {
		out = append(out, rest[:i]...)
		out = append(out, bottom.Bytes()...)
		rest = rest[i:]
	}
	return append(out, rest...)
}

// step is the per-document work of the extraction step (Processor.Score
// without the result bookkeeping): decode, parse, main text, links, date and
// language (document.Parse), then the document vector and its cosine to the
// reference vector, TempR and the priority (Scorer.Score).
func (fx *docFixture) step(d *benchDoc) (scoring.Score, error) {
	doc, err := document.Parse(d.body, d.contentType, d.url, document.Options{
		MaxBytes: fx.settings.MaxDocumentBytes, DefaultLanguage: fx.settings.DefaultLanguage, CaptureTime: d.capture,
	})
	if err != nil {
		return scoring.Score{}, err
	}
	docTime := doc.Published
	if docTime.IsZero() {
		docTime = d.capture
	}
	return fx.scorer.Score(doc.Text(), doc.Language, docTime), nil
}

// BenchmarkDocumentStep times the whole step and the bare html.Parse of the
// same page one after the other, page by page, so that both see the same
// machine load; it reports both rates and their ratio (target: step/parse
// at most 3), in wall time and in the process's CPU time (step/parse-cpu:
// on a machine shared with other jobs the wall-time ratio also measures
// the scheduler). pages=30-100KB is the benchmark of the target; pages=raw runs
// the same pages unpadded (10-20 KB, mostly text: the ratio's worst case).
func BenchmarkDocumentStep(b *testing.B) {
	fx := getDocFixture(b)
	b.Run("pages=30-100KB", func(b *testing.B) { benchStepVsParse(b, fx, fx.pages) })
	b.Run("pages=raw", func(b *testing.B) { benchStepVsParse(b, fx, fx.raw) })
}

func benchStepVsParse(b *testing.B, fx *docFixture, pages []benchDoc) {
	var total int64
	for _, d := range pages {
		total += int64(len(d.body))
	}
	b.SetBytes(2 * total / int64(len(pages)))
	var bare, step, bareCPU, stepCPU time.Duration
	_, cpuOK := processCPU()
	scored := 0
	i := 0
	for b.Loop() {
		d := &pages[i%len(pages)]
		i++
		c0, _ := processCPU()
		t0 := time.Now()
		if _, err := html.Parse(bytes.NewReader(d.body)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		c1, _ := processCPU()
		sc, err := fx.step(d)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		c2, _ := processCPU()
		bare += t1.Sub(t0)
		step += t2.Sub(t1)
		bareCPU += c1 - c0
		stepCPU += c2 - c1
		if sc.Terms > 0 {
			scored++
		}
	}
	if scored == 0 {
		b.Fatal("no page was scored")
	}
	b.ReportMetric(float64(i)/step.Seconds(), "step-docs/s")
	b.ReportMetric(float64(i)/bare.Seconds(), "parse-docs/s")
	b.ReportMetric(step.Seconds()/bare.Seconds(), "step/parse")
	if cpuOK && bareCPU > 0 {
		// The same ratio in CPU time of the process (GOMAXPROCS=1: one
		// thread runs Go code at a time, garbage collection included), which
		// a loaded machine does not distort.
		b.ReportMetric(stepCPU.Seconds()/bareCPU.Seconds(), "step/parse-cpu")
	}
	b.ReportMetric(float64(total)/float64(len(pages))/1024, "KB/page")
}

// BenchmarkDocumentStepOnly is the whole step alone (for profiles).
func BenchmarkDocumentStepOnly(b *testing.B) {
	fx := getDocFixture(b)
	b.SetBytes(fx.bytes / int64(len(fx.pages)))
	i := 0
	for b.Loop() {
		if _, err := fx.step(&fx.pages[i%len(fx.pages)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkDocumentBareHTMLParse is golang.org/x/net/html.Parse of the same
// pages alone.
func BenchmarkDocumentBareHTMLParse(b *testing.B) {
	fx := getDocFixture(b)
	b.SetBytes(fx.bytes / int64(len(fx.pages)))
	i := 0
	for b.Loop() {
		if _, err := html.Parse(bytes.NewReader(fx.pages[i%len(fx.pages)].body)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "docs/s")
}
