package evaluate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one named curve of a plot.
type Series struct {
	Name  string
	Curve Curve
}

// Chart is a line chart of curves against the number of extracted
// documents.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
}

// Plot size: wide enough for 4 legend entries and readable at report width.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
	// maxPoints bounds the points drawn per curve; longer curves are
	// sampled at even steps (always keeping the last point), which keeps
	// an SVG of a 100000-document run small without visible change.
	maxPoints = 2000
)

// AccumulatedChart is Figure 1: accumulated relevance against documents,
// one curve per run.
func (ev *Evaluation) AccumulatedChart(title string) Chart {
	c := Chart{Title: title, XLabel: "documents extracted", YLabel: "accumulated relevance (sum of topic_r)"}
	for _, m := range ev.Metrics {
		c.Series = append(c.Series, Series{m.Name, m.Accumulated})
	}
	return c
}

// FoundChart is the relevant-found curve (labels only): distinct relevant
// labelled URLs found against documents extracted. ok is false without
// labels.
func (ev *Evaluation) FoundChart(title string) (c Chart, ok bool) {
	if ev.Labels == nil {
		return Chart{}, false
	}
	c = Chart{Title: title, XLabel: "documents extracted",
		YLabel: fmt.Sprintf("relevant URLs found (of R = %d)", ev.Labels.Relevant())}
	for _, m := range ev.Metrics {
		c.Series = append(c.Series, Series{m.Name, m.Labels.Found})
	}
	return c, true
}

// build makes the gonum plot. Every curve starts at (0, 0).
func (c Chart) build() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.X.Min, p.Y.Min = 0, 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Millimeter * 2
	p.Legend.YOffs = -vg.Millimeter * 2
	p.Add(plotter.NewGrid())
	empty := true
	for i, s := range c.Series {
		xys := sample(s.Curve)
		if len(xys) > 1 {
			empty = false
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q, series %q: %w", c.Title, s.Name, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(s.Name, line)
	}
	if empty {
		// An all-empty chart still needs a range for its axes.
		p.X.Max, p.Y.Max = 1, 1
	}
	return p, nil
}

func sample(c Curve) plotter.XYs {
	step := 1
	if len(c) > maxPoints {
		step = (len(c) + maxPoints - 1) / maxPoints
	}
	xys := plotter.XYs{{X: 0, Y: 0}}
	for i := step - 1; i < len(c); i += step {
		xys = append(xys, plotter.XY{X: float64(i + 1), Y: c[i]})
	}
	if last := len(c); last > 0 && xys[len(xys)-1].X != float64(last) {
		xys = append(xys, plotter.XY{X: float64(last), Y: c[last-1]})
	}
	return xys
}

// Render draws the chart in format "svg" or "png". The SVG is
// deterministic: the same chart gives the same bytes (fonts are referenced
// by name, not embedded, and no timestamps or ids are written).
func (c Chart) Render(format string) ([]byte, error) {
	p, err := c.build()
	if err != nil {
		return nil, err
	}
	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return nil, fmt.Errorf("plot %q as %s: %w", c.Title, format, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %q as %s: %w", c.Title, format, err)
	}
	return buf.Bytes(), nil
}

// WriteFiles writes the chart as dir/base.svg and dir/base.png and returns
// the SVG bytes.
func (c Chart) WriteFiles(dir, base string) ([]byte, error) {
	var svg []byte
	for _, format := range []string{"svg", "png"} {
		b, err := c.Render(format)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, base+"."+format)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, fmt.Errorf("write plot: %w", err)
		}
		if format == "svg" {
			svg = b
		}
	}
	return svg, nil
}
