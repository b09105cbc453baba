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
	// pages, redirects, 404s and resources scale along. Exactly one of
	// Pages, TargetBytes and TargetCaptures is set.
	Pages int64
	// TargetBytes sizes the archive by its compressed size instead: the page
	// count is estimated (with 10% headroom), and generation stops at the
	// first block boundary after the archive reaches TargetBytes once all
	// listing pages are written.
	TargetBytes int64
	// TargetCaptures sizes the archive by its number of captures: the lines
	// of its CDXJ index (cdxj.IndexFile), which are all its records but the
	// warcinfo ones (responses and revisits: articles, listing pages,
	// redirects, 404s, images, style sheets). The page count is estimated
	// (with 10% headroom), and generation stops at the first article of the
	// block being planned after which the archive holds TargetCaptures
	// captures, once all listing pages are written: the archive holds
	// TargetCaptures captures or up to 7 more (an article has at most 8).
	// Below about 1,000 the listing pages alone can hold more captures
	// than TargetCaptures: 300 gives about 520.
	TargetCaptures int64
	Events         int    // number of events, 1..MaxEvents (0: DefaultEvents)
	MaxFileSize    int64  // maximum size of one WARC file (0: DefaultMaxFileSize)
	Prefix         string // WARC file name prefix (default DefaultPrefix)
	WARCVersion    string // "1.0" or "1.1" (default)
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
	if c.Pages < 0 || c.TargetBytes < 0 || c.TargetCaptures < 0 {
		return errors.New("config: Pages, TargetBytes and TargetCaptures must not be negative")
	}
	set := 0
	for _, v := range []int64{c.Pages, c.TargetBytes, c.TargetCaptures} {
		if v > 0 {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("config: exactly one of Pages, TargetBytes and TargetCaptures is required, got %d", set)
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
	Captures          int64          `json:"captures"` // records but warcinfo: the lines of the archive's CDXJ index
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
		if cfg.TargetCaptures > 0 {
			cfg.Logger.Info("estimated page count", "target_captures", cfg.TargetCaptures, "pages", pages)
		} else {
			cfg.Logger.Info("estimated page count", "target_bytes", cfg.TargetBytes, "pages", pages)
		}
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

// estimatePages sizes the archive for cfg.TargetBytes or
// cfg.TargetCaptures: it renders up to 8 evenly spaced blocks of a trial
// world (for captures it only plans them, which is cheap: up to 64 blocks,
// every block of a small world) and extrapolates, twice, then adds 10%
// headroom (generation stops once the target is reached). The headroom is
// small enough that, from about 1,000 captures, the target is reached after
// the last listing pages, which fill the first three quarters of the blocks.
func estimatePages(cfg Config) (int64, error) {
	target, pages := cfg.TargetBytes, max(cfg.TargetBytes/12000, 1000)
	if cfg.TargetCaptures > 0 {
		target, pages = cfg.TargetCaptures, max(cfg.TargetCaptures*2/5, 1000)
	}
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
		var amount, articles int64 // bytes or captures
		samples := min(p.blocks, 8)
		if cfg.TargetCaptures > 0 {
			samples = min(p.blocks, 64)
		}
		for k := range samples {
			blk := k * p.blocks / samples
			specs, _, n := w.blockSpecs(p, blk, w.blockEnd(p, blk), nil)
			articles += n
			if cfg.TargetCaptures > 0 {
				amount += int64(len(specs)) // one record, response or revisit, per spec
				continue
			}
			for _, s := range specs {
				r, err := b.build(s)
				if err != nil {
					return 0, err
				}
				amount += int64(len(r.member))
			}
		}
		perPage := float64(amount) / float64(max(articles, 1))
		pages = max(int64(float64(target)/perPage), 100)
	}
	if cfg.TargetCaptures > 0 {
		return pages + pages/10 + 20, nil
	}
	return pages + pages/10 + 100, nil
}

// blockSpecs plans the records of block b (articles [b*p.blockSize, end),
// end at most w.blockEnd(p, b), and the block's share of the other units),
// sorted by capture time, plus the labels of its articles.
func (w *world) blockSpecs(p *plan, b, end int64, labels []byte) ([]recSpec, []byte, int64) {
	var specs []recSpec
	var n int64
	for id := b * p.blockSize; id < end; id++ {
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

// blockEnd is the end of the article ids of block b.
func (w *world) blockEnd(p *plan, b int64) int64 { return min((b+1)*p.blockSize, w.pages) }

// articlesFor returns the end of the shortest run of the articles of block
// b from its first that, with all the block's other units, has at least
// need captures, and true; or w.blockEnd(p, b) and false if the whole block
// has fewer.
func (w *world) articlesFor(p *plan, b, need int64) (int64, bool) {
	var specs []recSpec
	for _, u := range p.blockUnits(b) {
		specs = w.unitRecords(p, u, specs)
	}
	have := int64(len(specs))
	id := b * p.blockSize
	for ; id < w.blockEnd(p, b) && have < need; id++ {
		a := w.article(id)
		specs = w.articleRecords(&a, specs[:0])
		have += int64(len(specs))
	}
	return id, have >= need
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

// generation is one run of Generate: what it generates from, and the
// outputs it writes and counts while the builders render.
type generation struct {
	cfg         Config
	w           *world
	plan        *plan
	lastArticle int64 // articles [0, lastArticle) were written

	labels  *os.File      // LabelsFile+".open" until closeOutputs renames it
	lw      *bufio.Writer // buffers labels
	fw      *fileWriter
	stop    atomic.Bool // set on the first error, or once the target size is reached
	count   tally
	start   time.Time
	lastLog time.Time
}

// tally counts what the summary reports, as the records are written.
type tally struct {
	pages        int64   // article pages whose block was written
	bytes        int64   // compressed bytes of the records written so far
	uncompressed int64   // their uncompressed bytes
	records      []int64 // records per recKind
	listURLs     [3]int64
	listRecs     [3]int64
	types        map[string]int64 // records per WARC-Type
	events       []EventSummary   // articles and mentions per event
}

// run renders the records on cfg.Workers builders and writes them, in the
// plan's order, to the WARC files, and the labels of each block after its
// records.
func (g *generation) run(ctx context.Context) (*Summary, error) {
	if err := g.openOutputs(); err != nil {
		return nil, err
	}
	defer g.labels.Close()
	builders := make([]*builder, g.cfg.Workers)
	for i := range builders {
		var err error
		if builders[i], err = newBuilder(g.w, g.plan, g.cfg.WARCVersion, g.cfg.CompressionLevel); err != nil {
			return nil, err
		}
	}
	work := make(chan *job, 256)
	ordered := make(chan *job, 1024)
	var wg sync.WaitGroup
	for _, b := range builders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.buildRecords(b, work)
		}()
	}
	go g.planBlocks(ctx, work, ordered)

	g.count = tally{records: make([]int64, len(recKindNames)), types: map[string]int64{}, events: make([]EventSummary, len(g.w.events))}
	g.start = time.Now()
	g.lastLog = g.start
	err := g.writeRecords(ordered)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	if err := g.closeOutputs(err); err != nil {
		return nil, err
	}
	sum := g.summary()
	elapsed := time.Since(g.start)
	if sum.Captures < g.cfg.TargetCaptures {
		g.cfg.Logger.Warn("the estimated page count gave fewer captures than the target",
			"captures", sum.Captures, "target_captures", g.cfg.TargetCaptures, "pages", sum.Pages)
	}
	g.cfg.Logger.Info("archive written", "files", len(sum.Files), "records", sum.Records, "captures", sum.Captures, "bytes", sum.Bytes,
		"seconds", fmt.Sprintf("%.1f", elapsed.Seconds()),
		"mb_per_s", fmt.Sprintf("%.1f", float64(sum.Bytes)/1e6/elapsed.Seconds()),
		"pages_per_s", fmt.Sprintf("%.0f", float64(sum.Pages)/elapsed.Seconds()))
	return sum, nil
}

// openOutputs creates the labels file, with its header, and the writer of
// the WARC files.
func (g *generation) openOutputs() error {
	cfg, w := g.cfg, g.w
	labels, err := os.Create(filepath.Join(cfg.OutDir, LabelsFile+".open"))
	if err != nil {
		return fmt.Errorf("create labels: %w", err)
	}
	g.labels = labels
	g.lw = bufio.NewWriterSize(labels, 1<<20)
	if cfg.Templates {
		g.lw.WriteString(strings.TrimSuffix(LabelsHeader, "\n") + "\ttemplate\n")
	} else {
		g.lw.WriteString(LabelsHeader)
	}
	mw, err := newMemberWriter(cfg.CompressionLevel)
	if err != nil {
		labels.Close()
		return err
	}
	g.fw = &fileWriter{dir: cfg.OutDir, prefix: cfg.Prefix, version: cfg.WARCVersion, maxSize: cfg.MaxFileSize, seed: w.seed, mw: mw,
		info: fmt.Sprintf("isPartOf: %s\r\ndescription: synthetic event-centric web archive (seed %d, %d article pages, %d events)\r\nrobots: ignore\r\n", cfg.Prefix, cfg.Seed, w.pages, len(w.events))}
	return nil
}

// buildRecords renders the records of the jobs that come on work (until
// g.stop is set) and closes each job's done.
func (g *generation) buildRecords(b *builder, work <-chan *job) {
	for j := range work {
		if !g.stop.Load() {
			j.res, j.err = b.build(j.spec)
		}
		close(j.done)
	}
}

// planBlocks plans the blocks in order: it sends each record of a block to
// the builders (work) and, in the same order, to the writer (ordered),
// followed by the block's end. It stops early once g.stop is set or ctx is
// done, and after the block that completes cfg.TargetCaptures (see
// lastBlockEnd).
func (g *generation) planBlocks(ctx context.Context, work, ordered chan<- *job) {
	defer close(ordered)
	defer close(work)
	w, p := g.w, g.plan
	var planned int64 // captures planned in the blocks before b
	for b := int64(0); b < p.blocks; b++ {
		if g.stop.Load() || ctx.Err() != nil {
			return
		}
		end, last := g.lastBlockEnd(b, planned)
		specs, labels, _ := w.blockSpecs(p, b, end, nil)
		planned += int64(len(specs))
		be := &blockEnd{b: b, labels: labels, units: p.blockUnits(b)}
		for id := b * p.blockSize; id < end; id++ {
			a := w.article(id)
			be.articles = append(be.articles, article{id: a.id, event: a.event, grade: a.grade})
		}
		for _, s := range specs {
			j := &job{spec: s, done: make(chan struct{})}
			work <- j
			ordered <- j
		}
		ordered <- &job{block: be}
		if last {
			g.cfg.Logger.Info("target captures reached", "captures", planned, "blocks", b+1, "of", p.blocks)
			return
		}
	}
}

// lastBlockEnd returns the end of the articles of block b, which follows
// blocks of planned captures, and whether b is the last block: with
// cfg.TargetCaptures, the block that carries the last listing pages or a
// later one is the last once its units and its first articles complete the
// target, and ends after the article that completes it.
func (g *generation) lastBlockEnd(b, planned int64) (end int64, last bool) {
	w, p, target := g.w, g.plan, g.cfg.TargetCaptures
	if target == 0 || b+1 < p.listBlocks() {
		return w.blockEnd(p, b), false
	}
	return w.articlesFor(p, b, target-planned)
}

// writeRecords takes the jobs in the plan's order and writes each record
// once it is built, and each block's labels at its end. After the first
// error, or once g.stop is set, it only waits for the jobs still building;
// it returns that error.
func (g *generation) writeRecords(ordered <-chan *job) error {
	var firstErr error
	for j := range ordered {
		if firstErr != nil || g.stop.Load() {
			if j.done != nil {
				<-j.done
			}
			continue
		}
		var err error
		if j.block != nil {
			err = g.endBlock(j.block)
		} else {
			<-j.done
			err = g.writeRecord(j)
		}
		if err != nil {
			firstErr = err
			g.stop.Store(true)
		}
	}
	return firstErr
}

// writeRecord appends a built record to the WARC files and counts it.
func (g *generation) writeRecord(j *job) error {
	if j.err != nil {
		return j.err
	}
	fw, c := g.fw, &g.count
	nfiles := len(fw.files)
	if err := fw.write(j.res.member, j.spec.t); err != nil {
		return err
	}
	if len(fw.files) > nfiles {
		f := fw.files[len(fw.files)-1]
		g.cfg.Logger.Info("wrote WARC file", "name", f.Name, "records", f.Records, "bytes", f.Bytes)
	}
	c.bytes += int64(len(j.res.member))
	c.uncompressed += j.res.uncompressed
	c.types[j.res.warcType]++
	if j.spec.kind == recList {
		c.listRecs[g.plan.lists[j.spec.id].kind]++
	}
	c.records[j.spec.kind]++
	return nil
}

// endBlock writes the labels of a block whose records are written and
// counts its articles and listing URLs. Once the archive has reached
// cfg.TargetBytes (and all listing pages are written) it sets g.stop.
func (g *generation) endBlock(be *blockEnd) error {
	cfg, p, c, log := g.cfg, g.plan, &g.count, g.cfg.Logger
	if _, err := g.lw.Write(be.labels); err != nil {
		return fmt.Errorf("write labels: %w", err)
	}
	for _, a := range be.articles {
		c.pages++
		g.lastArticle = a.id + 1
		if a.event != nil {
			if a.grade == 2 {
				c.events[a.event.Index].Articles++
			} else {
				c.events[a.event.Index].Mentions++
			}
		}
	}
	for _, u := range be.units {
		if u < int64(len(p.lists)) {
			c.listURLs[p.lists[u].kind]++
		}
	}
	if cfg.TargetBytes > 0 && cfg.Pages == 0 && c.bytes >= cfg.TargetBytes && be.b+1 >= p.listBlocks() {
		log.Info("target size reached", "bytes", c.bytes, "blocks", be.b+1, "of", p.blocks)
		g.stop.Store(true)
	}
	if time.Since(g.lastLog) > 10*time.Second {
		g.lastLog = time.Now()
		log.Info("progress", "block", be.b+1, "blocks", p.blocks, "bytes", c.bytes,
			"mb_per_s", fmt.Sprintf("%.1f", float64(c.bytes)/1e6/time.Since(g.start).Seconds()))
	}
	return nil
}

// closeOutputs closes the WARC files and the labels under their final
// names when err is nil; otherwise, or when closing fails, it removes the
// partial files, so that none is left under a final name or a temporary
// one. It returns err, or the first error of closing.
func (g *generation) closeOutputs(err error) error {
	fw, open := g.fw, filepath.Join(g.cfg.OutDir, LabelsFile+".open")
	if err == nil {
		err = fw.close()
	} else if fw.f != nil {
		fw.f.Close()
		os.Remove(filepath.Join(g.cfg.OutDir, fw.cur.Name+".open"))
	}
	if err == nil {
		if err = g.lw.Flush(); err != nil {
			err = fmt.Errorf("write labels: %w", err)
		} else if err = g.labels.Close(); err != nil {
			err = fmt.Errorf("close labels: %w", err)
		} else if err = os.Rename(open, filepath.Join(g.cfg.OutDir, LabelsFile)); err != nil {
			err = fmt.Errorf("rename labels: %w", err)
		}
	}
	if err != nil {
		g.labels.Close()
		os.Remove(open)
	}
	return err
}

// summary describes the archive written, from the files and the tally.
func (g *generation) summary() *Summary {
	c, files := &g.count, g.fw.files
	sum := &Summary{Seed: g.cfg.Seed, Pages: c.pages, Hosts: len(g.w.hosts), Files: files, UncompressedBytes: c.uncompressed}
	for _, f := range files {
		sum.Records += f.Records
		sum.Bytes += f.Bytes
	}
	c.types[typeWarcinfo] = int64(len(files))
	for _, t := range []string{typeWarcinfo, typeResponse, typeRevisit} {
		sum.RecordTypes = append(sum.RecordTypes, KindCount{Kind: t, Records: c.types[t]})
	}
	sum.Captures = c.types[typeResponse] + c.types[typeRevisit]
	sum.Kinds = append(sum.Kinds, KindCount{Kind: "article", URLs: c.pages, Records: c.records[recArticle]})
	for k := range c.listURLs {
		sum.Kinds = append(sum.Kinds, KindCount{Kind: listKindNames[k], URLs: c.listURLs[k], Records: c.listRecs[k]})
	}
	kinds := []recKind{recArticle404, recAlias, recHostRedirect, recCSS, recImage, recPhantom404}
	if g.cfg.Templates {
		kinds = append(kinds, recPrint, recAMP)
	}
	for _, k := range kinds {
		sum.Kinds = append(sum.Kinds, KindCount{Kind: recKindNames[k], Records: c.records[k]})
	}
	for i, e := range g.w.events {
		c.events[i].Slug, c.events[i].Start, c.events[i].End = e.Slug, e.StartDate(), e.EndDate()
	}
	sum.Events = c.events
	return sum
}
