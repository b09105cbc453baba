package archivegen

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Output file names inside Config.OutDir.
const (
	LabelsFile  = "labels.tsv"
	SpecsDir    = "specs"
	SummaryFile = "summary.json"
)

// Defaults.
const (
	DefaultEvents      = 6
	DefaultMaxFileSize = 1 << 30
	DefaultPrefix      = "DEMO"
	DefaultWARCVersion = "1.1"
)

// Config says what to generate.
type Config struct {
	OutDir string
	Seed   int64
	// Pages is the number of archived article pages; home, section and tag
	// pages, redirects, 404s and resources scale along.
	Pages int64
	// TargetBytes, when Pages is 0, sizes the archive by its compressed size
	// instead: the page count is estimated (with 10% headroom), and
	// generation stops at the first block boundary after the archive reaches
	// TargetBytes once all listing pages are written.
	TargetBytes int64
	Events      int    // number of events, 1..MaxEvents (0: DefaultEvents)
	MaxFileSize int64  // maximum size of one WARC file (0: DefaultMaxFileSize)
	Prefix      string // WARC file name prefix (default DefaultPrefix)
	WARCVersion string // "1.0" or "1.1" (default)
	// CompressionLevel is the gzip level of the WARC records (0: 1, the
	// fastest; 6, the default of most crawlers, is about 10% smaller and
	// 1.5x slower).
	CompressionLevel int
	Workers          int // parallel renderers (0: GOMAXPROCS); output does not depend on it
	// Templates gives the hosts the site templates of real news sites in
	// turn (Template; wikis keep theirs), and labels.tsv a template column.
	// Off, every host has the classic template and the output is as before.
	Templates bool
	Logger    *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.OutDir == "" {
		return errors.New("config: OutDir is required")
	}
	if c.Pages < 0 || c.TargetBytes < 0 {
		return errors.New("config: Pages and TargetBytes must not be negative")
	}
	if c.Pages == 0 && c.TargetBytes == 0 {
		return errors.New("config: one of Pages and TargetBytes is required")
	}
	if c.Events == 0 {
		c.Events = DefaultEvents
	}
	if c.Events < 1 || c.Events > MaxEvents {
		return fmt.Errorf("config: Events must be between 1 and %d, got %d", MaxEvents, c.Events)
	}
	if c.MaxFileSize == 0 {
		c.MaxFileSize = DefaultMaxFileSize
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.WARCVersion == "" {
		c.WARCVersion = DefaultWARCVersion
	}
	if c.WARCVersion != "1.0" && c.WARCVersion != "1.1" {
		return fmt.Errorf("config: WARCVersion must be 1.0 or 1.1, got %q", c.WARCVersion)
	}
	if c.CompressionLevel == 0 {
		c.CompressionLevel = 1
	}
	if c.CompressionLevel < 1 || c.CompressionLevel > 9 {
		return fmt.Errorf("config: CompressionLevel must be between 1 and 9, got %d", c.CompressionLevel)
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// KindCount counts the distinct URLs and the records of one kind of capture.
type KindCount struct {
	Kind    string `json:"kind"`
	URLs    int64  `json:"urls"`
	Records int64  `json:"records"`
}

// EventSummary counts the archived articles of one event.
type EventSummary struct {
	Slug     string `json:"slug"`
	Start    string `json:"start"`
	End      string `json:"end"`
	Articles int64  `json:"articles"` // grade 2
	Mentions int64  `json:"mentions"` // grade 1
}

// Summary describes a generated archive. It holds no timings, so it is as
// deterministic as the archive.
type Summary struct {
	Seed              int64          `json:"seed"`
	Pages             int64          `json:"pages"` // archived article pages
	Hosts             int            `json:"hosts"`
	Files             []FileSummary  `json:"files"`
	Records           int64          `json:"records"`
	Bytes             int64          `json:"bytes"`
	UncompressedBytes int64          `json:"uncompressed_bytes"`
	RecordTypes       []KindCount    `json:"record_types"` // URLs unused
	Kinds             []KindCount    `json:"kinds"`
	Events            []EventSummary `json:"events"`
}

// recKindNames name the capture kinds in the summary.
var recKindNames = [...]string{
	recArticle: "article", recArticle404: "article-deleted-404", recAlias: "alias-redirect", recList: "listing",
	recHostRedirect: "host-redirect", recCSS: "stylesheet", recImage: "image", recPhantom404: "dead-link-404",
	recPrint: "print-variant", recAMP: "amp-variant",
}

// Generate writes a synthetic archive to cfg.OutDir: WARC files, the labels,
// one collection specification per event and the summary.
func Generate(ctx context.Context, cfg Config) (*Summary, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	seed := uint64(cfg.Seed)
	pages := cfg.Pages
	if pages == 0 {
		var err error
		if pages, err = estimatePages(cfg); err != nil {
			return nil, err
		}
		cfg.Logger.Info("estimated page count", "target_bytes", cfg.TargetBytes, "pages", pages)
	}
	w, err := newWorld(seed, pages, cfg.Events)
	if err != nil {
		return nil, err
	}
	if cfg.Templates {
		w.assignTemplates()
	}
	if err := os.MkdirAll(filepath.Join(cfg.OutDir, SpecsDir), 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	p := w.newPlan()
	g := &generation{cfg: cfg, w: w, plan: p}
	sum, err := g.run(ctx)
	if err != nil {
		return nil, err
	}
	if err := writeSpecs(w, p, filepath.Join(cfg.OutDir, SpecsDir), g.lastArticle); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	if err := os.WriteFile(filepath.Join(cfg.OutDir, SummaryFile), append(js, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write summary: %w", err)
	}
	return sum, nil
}

// estimatePages sizes the archive for cfg.TargetBytes: it renders up to 8
// evenly spaced blocks of a trial world and extrapolates, twice, then adds
// headroom (generation stops once the target is reached).
func estimatePages(cfg Config) (int64, error) {
	pages := max(cfg.TargetBytes/12000, 1000)
	for range 2 {
		w, err := newWorld(uint64(cfg.Seed), pages, cfg.Events)
		if err != nil {
			return 0, err
		}
		if cfg.Templates {
			w.assignTemplates()
		}
		p := w.newPlan()
		b, err := newBuilder(w, p, cfg.WARCVersion, cfg.CompressionLevel)
		if err != nil {
			return 0, err
		}
		var bytes, articles int64
		samples := min(p.blocks, 8)
		for k := range samples {
			blk := k * p.blocks / samples
			specs, _, n := w.blockSpecs(p, blk, nil)
			articles += n
			for _, s := range specs {
				r, err := b.build(s)
				if err != nil {
					return 0, err
				}
				bytes += int64(len(r.member))
			}
		}
		perPage := float64(bytes) / float64(max(articles, 1))
		pages = max(int64(float64(cfg.TargetBytes)/perPage), 100)
	}
	return pages + pages/10 + 100, nil
}

// blockSpecs plans the records of block b (articles [b*p.blockSize,
// (b+1)*p.blockSize) and their share of the other units), sorted by capture
// time, plus the labels of its articles.
func (w *world) blockSpecs(p *plan, b int64, labels []byte) ([]recSpec, []byte, int64) {
	var specs []recSpec
	var n int64
	for id := b * p.blockSize; id < min((b+1)*p.blockSize, w.pages); id++ {
		a := w.article(id)
		specs = w.articleRecords(&a, specs)
		labels = appendLabel(labels, &a, w.templates)
		n++
	}
	for _, u := range p.blockUnits(b) {
		specs = w.unitRecords(p, u, specs)
	}
	slices.SortFunc(specs, specLess)
	return specs, labels, n
}

func appendLabel(dst []byte, a *article, templates bool) []byte {
	dst = append(dst, a.url...)
	dst = append(dst, '\t')
	if a.event != nil {
		dst = append(dst, a.event.Slug...)
	} else {
		dst = append(dst, '-')
	}
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(a.grade), 10)
	dst = append(dst, '\t')
	if a.alias != "" {
		dst = append(dst, a.alias...)
	} else {
		dst = append(dst, '-')
	}
	dst = append(dst, '\t')
	dst = warcDate(dst, a.pub)
	dst = append(dst, '\t')
	dst = append(dst, a.dates.String()...)
	dst = append(dst, '\t')
	dst = append(dst, langCodes[a.lang]...)
	dst = append(dst, '\t')
	dst = append(dst, a.host.Name...)
	dst = append(dst, '\t')
	dst = append(dst, a.main.slug...)
	if templates {
		dst = append(dst, '\t')
		dst = append(dst, a.host.Template.String()...)
	}
	return append(dst, '\n')
}

// LabelsHeader is the first line of the labels file. url is the canonical
// (archived) URL of an article, alias the old URL that redirects to it ("-"
// if none), grade 2 = about the event, 1 = mentions it, 0 = neither (event
// "-"); published is the true publication time, date_sources where the page
// states it.
// With Config.Templates a last column, template, names the host's
// Template.
const LabelsHeader = "#url\tevent\tgrade\talias\tpublished\tdate_sources\tlanguage\thost\ttopic\n"

// job is one record to render, or (block != nil) the end of a block.
type job struct {
	spec  recSpec
	res   built
	err   error
	done  chan struct{}
	block *blockEnd
}

type blockEnd struct {
	b        int64
	labels   []byte
	articles []article // only the fields the summary needs
	units    []int64
}

type generation struct {
	cfg         Config
	w           *world
	plan        *plan
	lastArticle int64 // articles [0, lastArticle) were written
}

func (g *generation) run(ctx context.Context) (*Summary, error) {
	cfg, w, p := g.cfg, g.w, g.plan
	log := cfg.Logger
	labels, err := os.Create(filepath.Join(cfg.OutDir, LabelsFile+".open"))
	if err != nil {
		return nil, fmt.Errorf("create labels: %w", err)
	}
	defer labels.Close()
	lw := bufio.NewWriterSize(labels, 1<<20)
	if cfg.Templates {
		lw.WriteString(strings.TrimSuffix(LabelsHeader, "\n") + "\ttemplate\n")
	} else {
		lw.WriteString(LabelsHeader)
	}

	mw, err := newMemberWriter(cfg.CompressionLevel)
	if err != nil {
		return nil, err
	}
	fw := &fileWriter{dir: cfg.OutDir, prefix: cfg.Prefix, version: cfg.WARCVersion, maxSize: cfg.MaxFileSize, seed: w.seed, mw: mw,
		info: fmt.Sprintf("isPartOf: %s\r\ndescription: synthetic event-centric web archive (seed %d, %d article pages, %d events)\r\nrobots: ignore\r\n", cfg.Prefix, cfg.Seed, w.pages, len(w.events))}

	work := make(chan *job, 256)
	ordered := make(chan *job, 1024)
	var stop atomic.Bool
	var wg sync.WaitGroup
	builders := make([]*builder, cfg.Workers)
	for i := range builders {
		if builders[i], err = newBuilder(w, p, cfg.WARCVersion, cfg.CompressionLevel); err != nil {
			return nil, err
		}
	}
	for _, b := range builders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if !stop.Load() {
					j.res, j.err = b.build(j.spec)
				}
				close(j.done)
			}
		}()
	}
	// Producer: plans blocks in order.
	go func() {
		defer close(ordered)
		defer close(work)
		var lbuf []byte
		for b := int64(0); b < p.blocks; b++ {
			if stop.Load() || ctx.Err() != nil {
				return
			}
			specs, lbuf2, _ := w.blockSpecs(p, b, lbuf[:0])
			lbuf = nil
			be := &blockEnd{b: b, labels: lbuf2, units: p.blockUnits(b)}
			for id := b * p.blockSize; id < min((b+1)*p.blockSize, w.pages); id++ {
				a := w.article(id)
				be.articles = append(be.articles, article{id: a.id, event: a.event, grade: a.grade})
			}
			for _, s := range specs {
				j := &job{spec: s, done: make(chan struct{})}
				work <- j
				ordered <- j
			}
			ordered <- &job{block: be}
		}
	}()

	sum := &Summary{Seed: cfg.Seed, Hosts: len(w.hosts)}
	recCounts := make([]int64, len(recKindNames))
	listURLs := [3]int64{}
	listRecs := [3]int64{}
	types := map[string]int64{}
	evArticles := make([]EventSummary, len(w.events))
	var firstErr error
	start := time.Now()
	lastLog := start
	var uncompressed int64
	for j := range ordered {
		if firstErr != nil || stop.Load() {
			if j.done != nil {
				<-j.done
			}
			continue
		}
		if j.block != nil {
			be := j.block
			if _, err := lw.Write(be.labels); err != nil {
				firstErr = fmt.Errorf("write labels: %w", err)
				stop.Store(true)
				continue
			}
			for _, a := range be.articles {
				sum.Pages++
				g.lastArticle = a.id + 1
				if a.event != nil {
					if a.grade == 2 {
						evArticles[a.event.Index].Articles++
					} else {
						evArticles[a.event.Index].Mentions++
					}
				}
			}
			for _, u := range be.units {
				if u < int64(len(p.lists)) {
					listURLs[p.lists[u].kind]++
				}
			}
			if cfg.TargetBytes > 0 && cfg.Pages == 0 && sum.Bytes >= cfg.TargetBytes && be.b+1 >= p.listBlocks() {
				log.Info("target size reached", "bytes", sum.Bytes, "blocks", be.b+1, "of", p.blocks)
				stop.Store(true)
			}
			if time.Since(lastLog) > 10*time.Second {
				lastLog = time.Now()
				log.Info("progress", "block", be.b+1, "blocks", p.blocks, "bytes", sum.Bytes,
					"mb_per_s", fmt.Sprintf("%.1f", float64(sum.Bytes)/1e6/time.Since(start).Seconds()))
			}
			continue
		}
		<-j.done
		if j.err != nil {
			firstErr = j.err
			stop.Store(true)
			continue
		}
		nfiles := len(fw.files)
		if err := fw.write(j.res.member, j.spec.t); err != nil {
			firstErr = err
			stop.Store(true)
			continue
		}
		if len(fw.files) > nfiles {
			f := fw.files[len(fw.files)-1]
			log.Info("wrote WARC file", "name", f.Name, "records", f.Records, "bytes", f.Bytes)
		}
		sum.Bytes += int64(len(j.res.member))
		uncompressed += j.res.uncompressed
		types[j.res.warcType]++
		if j.spec.kind == recList {
			listRecs[p.lists[j.spec.id].kind]++
		}
		recCounts[j.spec.kind]++
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr == nil {
		firstErr = fw.close()
	} else if fw.f != nil {
		// Leave no partial file behind under a final name or a temporary one.
		fw.f.Close()
		os.Remove(filepath.Join(cfg.OutDir, fw.cur.Name+".open"))
	}
	if firstErr == nil {
		if err := lw.Flush(); err != nil {
			firstErr = fmt.Errorf("write labels: %w", err)
		} else if err := labels.Close(); err != nil {
			firstErr = fmt.Errorf("close labels: %w", err)
		} else if err := os.Rename(filepath.Join(cfg.OutDir, LabelsFile+".open"), filepath.Join(cfg.OutDir, LabelsFile)); err != nil {
			firstErr = fmt.Errorf("rename labels: %w", err)
		}
	}
	if firstErr != nil {
		labels.Close()
		os.Remove(filepath.Join(cfg.OutDir, LabelsFile+".open"))
		return nil, firstErr
	}

	sum.Files = fw.files
	sum.Bytes = 0
	for _, f := range fw.files {
		sum.Records += f.Records
		sum.Bytes += f.Bytes
	}
	sum.UncompressedBytes = uncompressed
	types[typeWarcinfo] = int64(len(fw.files))
	for _, t := range []string{typeWarcinfo, typeResponse, typeRevisit} {
		sum.RecordTypes = append(sum.RecordTypes, KindCount{Kind: t, Records: types[t]})
	}
	sum.Kinds = append(sum.Kinds, KindCount{Kind: "article", URLs: sum.Pages, Records: recCounts[recArticle]})
	for k := range listURLs {
		sum.Kinds = append(sum.Kinds, KindCount{Kind: listKindNames[k], URLs: listURLs[k], Records: listRecs[k]})
	}
	for _, k := range []recKind{recArticle404, recAlias, recHostRedirect, recCSS, recImage, recPhantom404} {
		sum.Kinds = append(sum.Kinds, KindCount{Kind: recKindNames[k], Records: recCounts[k]})
	}
	if cfg.Templates {
		for _, k := range []recKind{recPrint, recAMP} {
			sum.Kinds = append(sum.Kinds, KindCount{Kind: recKindNames[k], Records: recCounts[k]})
		}
	}
	for i, e := range w.events {
		evArticles[i].Slug, evArticles[i].Start, evArticles[i].End = e.Slug, e.StartDate(), e.EndDate()
	}
	sum.Events = evArticles
	elapsed := time.Since(start)
	log.Info("archive written", "files", len(sum.Files), "records", sum.Records, "bytes", sum.Bytes,
		"seconds", fmt.Sprintf("%.1f", elapsed.Seconds()),
		"mb_per_s", fmt.Sprintf("%.1f", float64(sum.Bytes)/1e6/elapsed.Seconds()),
		"pages_per_s", fmt.Sprintf("%.0f", float64(sum.Pages)/elapsed.Seconds()))
	return sum, nil
}
