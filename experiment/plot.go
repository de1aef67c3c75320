package experiment

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/org/agentevolver/runlog"
)

// Plot size in pixels, as the trainer's progress plot.
const (
	plotWidthPx  = 960
	plotHeightPx = 600
)

// WritePlot draws each arm's mean validation success over RL steps, over
// its successful runs aligned by step (a run that lacks a step is left out
// of that step), with a shaded band from the minimum to the maximum over
// those runs, and writes the PNG to path atomically. The value axis spans
// [0, 1], or [0, top] for a comparison whose values all stay below one
// half (top a round number above the largest), so that small success
// rates do not lie flat on the axis. It returns an error wrapping [ErrNoData] when no arm has a
// successful run with a validation point.
func WritePlot(path string, c Comparison) error {
	p, err := comparisonPlot(c)
	if err != nil {
		return err
	}
	if err := runlog.WritePNG(p, path, plotWidthPx, plotHeightPx); err != nil {
		return fmt.Errorf("experiment: write plot %s: %w", path, err)
	}
	return nil
}

func comparisonPlot(c Comparison) (*plot.Plot, error) {
	title := c.Name + ": validation success"
	if c.Quick {
		title += " (quick run)"
	}
	p := runlog.NewPlot(title, "RL step", ValSuccessMetric)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = runlog.UnitTicks{}
	if top := valueAxisTop(c); top < 1 {
		p.Y.Max = top
		p.Y.Tick.Marker = plot.DefaultTicks{}
	}
	drawn := 0
	for i, a := range c.Arms {
		pts := a.meanCurve()
		if len(pts) == 0 {
			continue
		}
		mean := make(plotter.XYs, len(pts))
		band := make(plotter.XYs, 0, 2*len(pts))
		for j, pt := range pts {
			mean[j] = plotter.XY{X: float64(pt.Step), Y: pt.Mean}
			band = append(band, plotter.XY{X: float64(pt.Step), Y: pt.Max})
		}
		for j := len(pts) - 1; j >= 0; j-- {
			band = append(band, plotter.XY{X: float64(pts[j].Step), Y: pts[j].Min})
		}
		col := plotutil.Color(i)
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, fmt.Errorf("experiment: plot arm %q: %w", a.Name, err)
		}
		poly.Color = translucent(col, 0x40)
		poly.LineStyle.Width = 0
		line, scatter, err := plotter.NewLinePoints(mean)
		if err != nil {
			return nil, fmt.Errorf("experiment: plot arm %q: %w", a.Name, err)
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		scatter.Color = col
		scatter.Shape = plotutil.Shape(i)
		scatter.Radius = vg.Points(3)
		p.Add(poly, line, scatter)
		n := len(a.Finals())
		label := fmt.Sprintf("%s: mean of %d %s, band min-max", a.Name, n, plural(n, "seed", "seeds"))
		if a.FinalMean != nil && a.FinalStd != nil {
			label += fmt.Sprintf("; final %.3f ± %.3f", *a.FinalMean, *a.FinalStd)
		}
		p.Legend.Add(label, poly, line, scatter)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("%w (experiment %s)", ErrNoData, c.Name)
	}
	return p, nil
}

// valueAxisTop returns the top of the value axis: 1, or for a comparison
// whose largest value (band maxima included) is below 0.5 the smallest of
// 0.01, 0.02, 0.05, 0.1, 0.2 and 0.5 at least 15% above it.
func valueAxisTop(c Comparison) float64 {
	largest := 0.0
	for _, a := range c.Arms {
		for _, pt := range a.meanCurve() {
			largest = max(largest, pt.Max)
		}
	}
	for _, top := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5} {
		if largest*1.15 <= top {
			return top
		}
	}
	return 1
}

// translucent returns c with alpha a.
func translucent(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
