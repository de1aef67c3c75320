package runlog

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Metrics [PlotMetrics] draws when given none.
const (
	// TrainRewardMetric is the mean training reward of a step.
	TrainRewardMetric = "reward/mean"
	// ValSuccessMetric is the validation success, logged at validation steps.
	ValSuccessMetric = "val/success"
)

const (
	defaultPlotTitle   = "Training progress"
	defaultPlotXLabel  = "step"
	defaultPlotYLabel  = "value"
	defaultPlotWidthPx = 960
	defaultPlotHeight  = 600
	defaultPlotDPI     = 120
)

// PlotOptions configures [Plot]. The zero value draws [TrainRewardMetric]
// and [ValSuccessMetric] on a 960x600 pixel image titled "Training
// progress".
type PlotOptions struct {
	// Title is the plot title.
	Title string
	// XLabel and YLabel label the axes ("step" and "value" by default).
	XLabel, YLabel string
	// Metrics names the metrics to draw, one line each, in legend order.
	Metrics []string
	// Width and Height are the image size in pixels.
	Width, Height int
}

// PlotMetrics draws the named metrics of records over steps (by default
// [TrainRewardMetric] and [ValSuccessMetric]) and writes the PNG to outPNG
// atomically. See [Plot].
func PlotMetrics(records []Record, outPNG string, metrics ...string) error {
	return Plot(records, outPNG, PlotOptions{Metrics: metrics})
}

// Plot draws each metric of opts as a line with markers over the steps of
// the records that have it, so a metric logged only at validation steps
// shows as sparse points joined by a line. Points are ordered by step; NaN
// and infinite values are left out because they have no place on the axis,
// and so is a metric without any finite value. If no metric has a point, Plot
// returns [ErrNoData]. When every point lies in [0, 1] the value axis spans
// exactly [0, 1]. The PNG is written to outPNG atomically, creating
// parent directories. It uses gonum's built-in fonts and needs no display.
func Plot(records []Record, outPNG string, opts PlotOptions) error {
	p, err := newPlot(records, opts)
	if err != nil {
		return err
	}
	return WritePNG(p, outPNG, cmp.Or(opts.Width, defaultPlotWidthPx), cmp.Or(opts.Height, defaultPlotHeight))
}

// NewPlot returns an empty plot in the style of the run's progress plot:
// the title and axis labels, a grid, and the legend at the top left. Other
// plots of a run (an experiment's comparison) start from it so that they
// look alike.
func NewPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Title.Padding = vg.Points(8)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(12)
	p.Legend.YOffs = -vg.Points(6)
	return p
}

// WritePNG draws p on a width x height pixel canvas at 120 dpi and writes
// the PNG to path atomically, creating parent directories.
func WritePNG(p *plot.Plot, path string, width, height int) error {
	if width <= 0 || height <= 0 {
		return fmt.Errorf("runlog: plot size %dx%d is not positive", width, height)
	}
	pxToLength := func(px int) vg.Length { return vg.Length(px) * vg.Inch / defaultPlotDPI }
	canvas := vgimg.NewWith(vgimg.UseWH(pxToLength(width), pxToLength(height)), vgimg.UseDPI(defaultPlotDPI))
	p.Draw(draw.New(canvas))
	return writeFileAtomic(path, func(w io.Writer) error {
		if _, err := (vgimg.PngCanvas{Canvas: canvas}).WriteTo(w); err != nil {
			return fmt.Errorf("runlog: encode plot: %w", err)
		}
		return nil
	})
}

func newPlot(records []Record, opts PlotOptions) (*plot.Plot, error) {
	metrics := opts.Metrics
	if len(metrics) == 0 {
		metrics = []string{TrainRewardMetric, ValSuccessMetric}
	}
	p := NewPlot(cmp.Or(opts.Title, defaultPlotTitle), cmp.Or(opts.XLabel, defaultPlotXLabel), cmp.Or(opts.YLabel, defaultPlotYLabel))
	drawn, unitRange := 0, true
	for i, metric := range metrics {
		points := metricPoints(records, metric)
		if len(points) == 0 {
			continue
		}
		line, scatter, err := plotter.NewLinePoints(points)
		if err != nil {
			return nil, fmt.Errorf("runlog: plot %q: %w", metric, err)
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		scatter.Color = plotutil.Color(i)
		scatter.Shape = plotutil.Shape(i)
		scatter.Radius = vg.Points(3)
		p.Add(line, scatter)
		p.Legend.Add(metric, line, scatter)
		drawn++
		for _, pt := range points {
			unitRange = unitRange && pt.Y >= 0 && pt.Y <= 1
		}
	}
	if drawn == 0 {
		return nil, fmt.Errorf("%w: none of %q has a finite value", ErrNoData, metrics)
	}
	if unitRange {
		// Rewards and success rates in [0, 1] are shown on the whole scale,
		// so progress looks as large as it is and no larger.
		p.Y.Min, p.Y.Max = 0, 1
		p.Y.Tick.Marker = UnitTicks{}
	}
	return p, nil
}

// metricPoints returns the finite values of metric as (step, value) points
// ordered by step, keeping file order within a step.
func metricPoints(records []Record, metric string) plotter.XYs {
	var points plotter.XYs
	for _, r := range records {
		v, ok := r.Values[metric]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		points = append(points, plotter.XY{X: float64(r.Step), Y: v})
	}
	slices.SortStableFunc(points, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	return points
}

// UnitTicks is the plot.Ticker of a [0, 1] value axis: labels every 0.2
// and minor ticks every 0.1 (the default ticker puts only three labels
// there).
type UnitTicks struct{}

// Ticks implements plot.Ticker.
func (UnitTicks) Ticks(_, _ float64) []plot.Tick {
	ticks := make([]plot.Tick, 0, 11)
	for i := range 11 {
		tick := plot.Tick{Value: float64(i) / 10}
		if i%2 == 0 {
			tick.Label = strconv.FormatFloat(tick.Value, 'f', 1, 64)
		}
		ticks = append(ticks, tick)
	}
	return ticks
}
