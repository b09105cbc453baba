package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/report"
)

// archiveSection returns the report's archive section ("" if none).
func archiveSection(html string) string {
	start := strings.Index(html, `<h2 id="archives">`)
	if start < 0 {
		return ""
	}
	end := strings.Index(html[start:], "</table>")
	if end < 0 {
		return html[start:]
	}
	return html[start : start+end]
}

// tagArchives rewrites a synthetic run as if it had read several archives:
// document i names archive of(i), and run.json lists archives in order.
func tagArchives(t *testing.T, dir string, archives []string, of func(i int) string) {
	t.Helper()
	p := filepath.Join(dir, "documents.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		m["archive"] = of(i)
		b, _ := json.Marshal(m)
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p = filepath.Join(dir, "run.json")
	if data, err = os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	for _, a := range archives {
		list = append(list, map[string]any{"name": a, "index": "cdxj:/idx/" + a + ".cdxj", "locations": []string{"/warcs/" + a}})
	}
	run["archives"] = list
	b, _ := json.MarshalIndent(run, "", "  ")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportArchiveShares: a run that read several archives gets a row per
// archive with its documents and share, in the order the archives were
// named, an archive that gave nothing included; a run of one archive is
// not listed, and a report without such runs has no archive section.
func TestReportArchiveShares(t *testing.T) {
	root := t.TempDir()
	multi, single := filepath.Join(root, "OUT_ctf"), filepath.Join(root, "OUT_cf")
	evaltest.WriteRun(t, multi, evaltest.RunSpec{Strategy: "ctf", Docs: 150, Focus: 0.9, Seed: 11, OrderSeed: 1, URLsConsidered: 900, Missing: 5})
	evaltest.WriteRun(t, single, evaltest.RunSpec{Strategy: "cf", Docs: 120, Focus: 0.5, Seed: 11, OrderSeed: 2, URLsConsidered: 800, Missing: 5})
	rep := filepath.Join(root, "report")
	eval := func() string {
		t.Helper()
		if err := evaluate.EvalCommand(context.Background(), []string{"--runs", multi + "," + single, "--report", rep}, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(rep, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if s := archiveSection(eval()); s != "" {
		t.Errorf("runs of one unnamed archive got an archive section:\n%s", s)
	}

	// 90 documents from special, 60 from national, none from the third.
	tagArchives(t, multi, []string{"national", "special", "web"}, func(i int) string {
		if i%5 < 3 {
			return "special"
		}
		return "national"
	})
	tagArchives(t, single, []string{"national"}, func(int) string { return "national" })
	s := archiveSection(eval())
	if s == "" {
		t.Fatal("no archive section for a run of three archives")
	}
	squash := regexp.MustCompile(`\s+`).ReplaceAllString(s, " ")
	for _, want := range []string{
		`ctf (150 documents)`,
		`<td>national</td><td class="n">60</td><td class="n">40.0%</td>`,
		`<td>special</td><td class="n">90</td><td class="n">60.0%</td>`,
		`<td>web</td><td class="n">0</td><td class="n">0.0%</td>`,
	} {
		if !strings.Contains(squash, want) {
			t.Errorf("archive section lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(squash, ">national<") > strings.Index(squash, ">special<") || strings.Index(squash, ">special<") > strings.Index(squash, ">web<") {
		t.Errorf("archives not in the order named (national, special, web):\n%s", s)
	}
	if strings.Contains(squash, "cf (") {
		t.Errorf("the run of a single archive is listed:\n%s", s)
	}
}

func TestRenderArchiveShares(t *testing.T) {
	p := &report.Page{Title: "t", Spec: report.Spec{Name: "n"}, Archives: []report.ArchiveShare{{Run: "<ctf>", Documents: 0,
		Archives: []report.ArchiveCount{{Name: "a&b", Documents: 0, Percent: nan()}, {Name: "c"}}}}}
	var buf bytes.Buffer
	if err := report.Render(&buf, p); err != nil {
		t.Fatal(err)
	}
	s := archiveSection(buf.String())
	for _, want := range []string{`rowspan="2"`, "&lt;ctf&gt; (0 documents)", "<td>a&amp;b</td>", `<td class="n">–%</td>`} {
		if !strings.Contains(s, want) {
			t.Errorf("archive section lacks %q:\n%s", want, s)
		}
	}
}
