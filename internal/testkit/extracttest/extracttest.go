// Package extracttest builds what the end-to-end tests of the extraction
// (pipelines/extract) run on: a generated archive (internal/corpus/archivegen), its
// snapshot index as a CDXJ file, a ZipNum index and, on demand, a Bigtable
// table, with the per-language document-frequency dictionaries the index
// pipeline writes next to an index; and the extract binary, built once.
//
// The index is built here in plain Go, the way pipelines/index builds it
// (cdxj.IndexFile per archive file, lines sorted as `LC_ALL=C sort` sorts
// them, zipnum.Build, a df-LANG.tsv per language counting each HTTP 200
// HTML response once, terms in fewer than 2 documents pruned), so the
// extraction tests do not depend on the index pipeline's own state.
package extracttest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/zipnum"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
)

// Archive is a generated archive with its indexes.
type Archive struct {
	Root      string   // everything below lives here
	WARCDir   string   // the WARC files: the --archive location
	WARCs     []string // their paths, sorted
	Labels    string   // labels.tsv
	SpecsDir  string   // specs/EVENT.yaml
	CDXJ      string   // INDEX/index.cdxj, with df-LANG.tsv next to it
	ZipNumDir string   // a ZipNum index of the same lines, with the same df files
	Lines     []string // the sorted CDXJ lines
	Summary   *archivegen.Summary
}

// Spec returns the path of an event's collection specification.
func (a *Archive) Spec(event string) string { return filepath.Join(a.SpecsDir, event+".yaml") }

// IndexSpec returns the --index value of the CDXJ index.
func (a *Archive) IndexSpec() string { return "cdxj:" + a.CDXJ }

// Dictionary returns the df file of a language next to the CDXJ index.
func (a *Archive) Dictionary(lang string) string {
	return filepath.Join(filepath.Dir(a.CDXJ), scoring.DocFreqFileName(lang))
}

// Build generates an archive into root (cfg.OutDir is set to root/archive)
// and indexes it.
func Build(ctx context.Context, root string, cfg archivegen.Config) (*Archive, error) {
	a := &Archive{Root: root, WARCDir: filepath.Join(root, "archive")}
	cfg.OutDir = a.WARCDir
	sum, err := archivegen.Generate(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("generate archive: %w", err)
	}
	a.Summary = sum
	a.Labels = filepath.Join(a.WARCDir, archivegen.LabelsFile)
	a.SpecsDir = filepath.Join(a.WARCDir, archivegen.SpecsDir)
	if a.WARCs, err = filepath.Glob(filepath.Join(a.WARCDir, "*.warc.gz")); err != nil {
		return nil, err
	}
	sort.Strings(a.WARCs)
	if len(a.WARCs) == 0 {
		return nil, errors.New("the generator wrote no WARC files")
	}
	for _, w := range a.WARCs {
		f, err := os.Open(w)
		if err != nil {
			return nil, err
		}
		_, err = cdxj.IndexFile(bufio.NewReaderSize(f, 1<<20), filepath.Base(w), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			a.Lines = append(a.Lines, c.Line())
			return nil
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", w, err)
		}
	}
	sort.Strings(a.Lines)
	indexDir := filepath.Join(root, "index")
	a.CDXJ = filepath.Join(indexDir, "index.cdxj")
	a.ZipNumDir = filepath.Join(root, "zipnum")
	if err := WriteLines(a.CDXJ, a.Lines); err != nil {
		return nil, err
	}
	if err := zipnum.Build(a.ZipNumDir, zipnum.Lines(a.Lines), len(a.Lines)/3+1, 500); err != nil {
		return nil, fmt.Errorf("zipnum index: %w", err)
	}
	if err := writeDictionaries(ctx, a, []string{indexDir, a.ZipNumDir}); err != nil {
		return nil, err
	}
	return a, nil
}

// WriteLines writes lines, each ending in a newline, to a new file.
func WriteLines(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// writeDictionaries counts document frequencies per language over the HTTP
// 200 HTML responses of the archive (what pipelines/index --dictionary
// counts) and writes df-LANG.tsv into each of dirs.
func writeDictionaries(ctx context.Context, a *Archive, dirs []string) error {
	analyzers, err := scoring.NewAnalyzers("en")
	if err != nil {
		return err
	}
	fetcher := archive.NewFetcher([]string{a.WARCDir})
	defer fetcher.Close()
	dfs := map[string]*scoring.DocFreq{}
	bag := scoring.NewBag()
	var tokens []scoring.Token
	for _, line := range a.Lines {
		c, err := cdxj.Parse(line)
		if err != nil {
			return err
		}
		if c.IsRevisit() || c.Status != "200" || !cdxj.IsHTML(c.Mime) {
			continue
		}
		rec, err := fetcher.Read(ctx, c)
		if err != nil {
			return fmt.Errorf("dictionary: %s: %w", c.URL, err)
		}
		ct := ""
		if rec.HTTP != nil {
			ct = rec.HTTP.Header.Get("Content-Type")
		}
		opts := document.Options{DefaultLanguage: "en"}
		if t, err := extract.CaptureTime(c.Timestamp); err == nil {
			opts.CaptureTime = t
		}
		doc, err := document.Parse(rec.Body, ct, c.URL, opts)
		if err != nil || doc.Reason != "" {
			continue
		}
		an := analyzers.For(doc.Language)
		tokens = an.AppendTokens(tokens[:0], doc.Text())
		bag.Reset()
		bag.AddTokens(tokens)
		if bag.Len() == 0 {
			continue
		}
		lang := an.Language()
		if dfs[lang] == nil {
			dfs[lang] = scoring.NewDocFreq(lang)
		}
		dfs[lang].AddDocument(bag)
	}
	for lang, df := range dfs {
		df.Prune(2)
		var b bytes.Buffer
		if _, err := df.WriteTo(&b); err != nil {
			return err
		}
		for _, dir := range dirs {
			if err := os.WriteFile(filepath.Join(dir, scoring.DocFreqFileName(lang)), b.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadBigtable creates table in the Bigtable instance (the emulator, with
// BIGTABLE_EMULATOR_HOST set) and loads the archive's captures and its
// document frequencies (the df-LANG.tsv files next to the CDXJ index) into
// it, as pipelines/index --bigtable --dictionary does.
func (a *Archive) LoadBigtable(ctx context.Context, project, instance, table string) error {
	admin, err := bigtable.NewAdminClient(ctx, project, instance)
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := btindex.EnsureTable(ctx, admin, table); err != nil {
		return err
	}
	client, err := bigtable.NewClient(ctx, project, instance)
	if err != nil {
		return err
	}
	defer client.Close()
	w := btindex.NewWriter(client.Open(table), 0)
	for _, l := range a.Lines {
		c, err := cdxj.Parse(l)
		if err != nil {
			return err
		}
		if err := w.Add(ctx, c); err != nil {
			return err
		}
	}
	if err := w.Close(ctx); err != nil {
		return err
	}
	dfs, err := filepath.Glob(filepath.Join(filepath.Dir(a.CDXJ), scoring.DocFreqFileGlob))
	if err != nil {
		return err
	}
	for _, f := range dfs {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		lang, _ := scoring.DocFreqLanguage(filepath.Base(f))
		if err := btindex.WriteDictionary(ctx, client.Open(table), lang, data); err != nil {
			return err
		}
	}
	return nil
}

// RepoRoot returns the root of the module (the directory holding go.mod),
// found from the working directory upwards.
func RepoRoot() (string, error) {
	return sharedtest.Repo(), nil
}

// BuildBinary builds a main package of the module (e.g. "./cmd/recrawl")
// into dir and returns the binary's path.
func BuildBinary(dir, pkg string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}
