package experiment

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable writes the comparison as a table for people: per arm the
// successful runs out of those run, the final validation success as mean ±
// sample standard deviation, its minimum and maximum, and the mean wall
// time of the successful runs; then a line per arm with each seed's final
// value, and the error of every failed run.
func WriteTable(w io.Writer, c Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "experiment %s: %d RL steps per run; final = validation success (%s) at the last step\n", c.Name, c.Steps, ValSuccessMetric)
	if c.Quick {
		b.WriteString("quick run: a smoke test of the experiment, not a measurement\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\truns\tfinal mean ± std\tmin\tmax\tmean wall")
	for _, a := range c.Arms {
		finals := a.Finals()
		mean, lo, hi, wall := "-", "-", "-", "-"
		if len(finals) > 0 && a.FinalMean != nil && a.FinalStd != nil {
			mean = fmt.Sprintf("%.3f ± %.3f", *a.FinalMean, *a.FinalStd)
			lo, hi = fmt.Sprintf("%.3f", slices.Min(finals)), fmt.Sprintf("%.3f", slices.Max(finals))
			var sum float64
			for _, s := range a.Seeds {
				if s.OK() {
					sum += s.WallSeconds
				}
			}
			wall = formatSeconds(sum / float64(len(finals)))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\n", a.Name, len(finals), len(a.Seeds), mean, lo, hi, wall)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("experiment: table: %w", err)
	}
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, a := range c.Arms {
		cells := make([]string, 0, len(a.Seeds))
		for _, s := range a.Seeds {
			if s.OK() {
				cells = append(cells, fmt.Sprintf("s%d %.3f", s.Seed, *s.Final))
			} else {
				cells = append(cells, fmt.Sprintf("s%d failed", s.Seed))
			}
		}
		if len(cells) == 0 {
			cells = append(cells, "no runs")
		}
		fmt.Fprintf(tw, "%s\tfinals: %s\n", a.Name, strings.Join(cells, "  "))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("experiment: table: %w", err)
	}
	for _, a := range c.Arms {
		for _, s := range a.Seeds {
			if !s.OK() {
				fmt.Fprintf(&b, "failed: %s seed %d: %s\n", a.Name, s.Seed, cmp.Or(s.Error, "no validation result"))
			}
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("experiment: table: %w", err)
	}
	return nil
}

// formatSeconds shows a duration with a precision that suits its size.
func formatSeconds(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.1fs", s)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
