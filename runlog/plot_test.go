package runlog

import (
	"errors"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// trainingRecords imitates a run: reward every step, validation every 5.
func trainingRecords(steps int) []Record {
	var records []Record
	for s := range steps {
		x := float64(s) / float64(steps)
		records = append(records, Record{Step: int64(s), Time: t0, Values: map[string]float64{
			TrainRewardMetric: 0.1 + 0.7*x + 0.05*math.Sin(float64(s)), "loss": 1 - x,
		}})
		if s%5 == 0 || s == steps-1 {
			records = append(records, Record{Step: int64(s), Time: t0, Values: map[string]float64{ValSuccessMetric: 0.2 + 0.6*x}})
		}
	}
	return records
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	return img
}

// colouredPixels counts pixels that are clearly not grey: line and marker
// colours, as opposed to background, text, axes and grid.
func colouredPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl), min(r, g, bl)
			if hi-lo > 0x4000 {
				n++
			}
		}
	}
	return n
}

func TestPlotMetrics(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plots", "progress.png")
	records := trainingRecords(40)
	// Non-finite values and metrics that are not asked for are left out.
	records = append(records, Record{Step: 40, Time: t0, Values: map[string]float64{TrainRewardMetric: math.NaN()}})
	if err := PlotMetrics(records, path); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path)
	if b := img.Bounds(); b.Dx() != 960 || b.Dy() != 600 {
		t.Errorf("image is %dx%d, want 960x600", b.Dx(), b.Dy())
	}
	if n := colouredPixels(img); n < 500 {
		t.Errorf("only %d coloured pixels: lines missing?", n)
	}
	// Overwriting goes through a temporary file that does not stay behind.
	if err := Plot(records, path, PlotOptions{Title: "again", Metrics: []string{"loss"}, Width: 400, Height: 300}); err != nil {
		t.Fatal(err)
	}
	if b := decodePNG(t, path).Bounds(); b.Dx() != 400 || b.Dy() != 300 {
		t.Errorf("resized image is %dx%d, want 400x300", b.Dx(), b.Dy())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
}

func TestPlotEdgeCases(t *testing.T) {
	one := []Record{{Step: 3, Time: t0, Values: map[string]float64{ValSuccessMetric: 0.5}}}
	tests := []struct {
		name    string
		records []Record
		opts    PlotOptions
		wantErr error
	}{
		{"single point", one, PlotOptions{}, nil},
		{"one metric missing", trainingRecords(3), PlotOptions{Metrics: []string{"absent", "loss"}}, nil},
		{"no records", nil, PlotOptions{}, ErrNoData},
		{"only non-finite", []Record{{Step: 1, Values: map[string]float64{TrainRewardMetric: math.Inf(1)}}}, PlotOptions{}, ErrNoData},
		{"bad size", one, PlotOptions{Width: -5}, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.png")
			err := Plot(tt.records, path, tt.opts)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatal(err)
			case tt.wantErr == nil:
				decodePNG(t, path)
			case err == nil:
				t.Fatalf("Plot succeeded, want %v", tt.wantErr)
			case tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			default:
				if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
					t.Error("a file was written despite the error")
				}
			}
		})
	}
}

var errAny = errors.New("any error")

func TestMetricPointsOrder(t *testing.T) {
	records := []Record{
		{Step: 5, Values: map[string]float64{"m": 5}},
		{Step: 1, Values: map[string]float64{"m": 1}},
		{Step: 5, Values: map[string]float64{"m": 6}},
		{Step: 2, Values: map[string]float64{"other": 2}},
	}
	got := metricPoints(records, "m")
	want := [][2]float64{{1, 1}, {5, 5}, {5, 6}}
	if len(got) != len(want) {
		t.Fatalf("points %v, want %v", got, want)
	}
	for i, p := range got {
		if p.X != want[i][0] || p.Y != want[i][1] {
			t.Errorf("point %d = %v, want %v", i, p, want[i])
		}
	}
}
