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
// sample standard deviation, its minimum and maximum, avg@k and best@k
// (mean ± std) when the runs validated k > 1 rollouts per task, policy
// turns per successful validation episode when the runs logged them, the
// difference from the arm's base arm paired by seed (mean ± std and its
// 95% confidence interval, starred when it excludes 0) and the first RL
// step at which the arm reached its base arm's final success (mean ± std
// over the seeds that did) when any arm names a base, and the mean wall
// time of the successful runs; then a line
// per arm with each seed's final value, the error of every failed run, and
// the experiment's total wall time.
func WriteTable(w io.Writer, c Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "experiment %s: %d RL steps per run; final = validation success (%s) at the last step\n", c.Name, c.Steps, ValSuccessMetric)
	if c.Quick {
		b.WriteString("quick run: a smoke test of the experiment, not a measurement\n")
	}
	k, withBase, withTurns := 0, false, false
	for _, a := range c.Arms {
		if a.AvgAtK != nil || a.BestAtK != nil {
			k = max(k, a.K)
		}
		withBase = withBase || a.Base != ""
		withTurns = withTurns || a.TurnsPerSuccess != nil
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	header := "arm\truns\tfinal mean ± std\tmin\tmax"
	if k > 1 {
		header += fmt.Sprintf("\tavg@%d\tbest@%d", k, k)
	}
	if withTurns {
		header += "\tturns/success"
	}
	if withBase {
		header += "\tvs base (paired, 95% CI)\tsteps to base final"
	}
	fmt.Fprintln(tw, header+"\tmean wall")
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
		row := fmt.Sprintf("%s\t%d/%d\t%s\t%s\t%s", a.Name, len(finals), len(a.Seeds), mean, lo, hi)
		if k > 1 {
			row += "\t" + formatSpread(a.AvgAtK, "%.3f") + "\t" + formatSpread(a.BestAtK, "%.3f")
		}
		if withTurns {
			row += "\t" + formatSpread(a.TurnsPerSuccess, "%.2f")
		}
		if withBase {
			diff, speed := "-", "-"
			if a.Base != "" {
				diff = formatPaired(a.DiffFromBase) + " vs " + a.Base
				speed = fmt.Sprintf("%s (%d/%d seeds)", formatSpread(a.StepsToBase, "%.1f"), a.ReachedBase, len(finals))
			}
			row += "\t" + diff + "\t" + speed
		}
		fmt.Fprintln(tw, row+"\t"+wall)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("experiment: table: %w", err)
	}
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if len(c.Starts) > 0 {
		// Where every arm of each seed began (a start run's validation).
		fmt.Fprintf(tw, "%s\tfrom: %s\n", StartDir, seedCells(c.Starts))
	}
	for _, a := range c.Arms {
		fmt.Fprintf(tw, "%s\tfinals: %s\n", a.Name, seedCells(a.Seeds))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("experiment: table: %w", err)
	}
	for _, s := range c.Starts {
		if s.Error != "" {
			fmt.Fprintf(&b, "failed: %s seed %d: %s\n", StartDir, s.Seed, s.Error)
		}
	}
	for _, a := range c.Arms {
		for _, s := range a.Seeds {
			if !s.OK() {
				fmt.Fprintf(&b, "failed: %s seed %d: %s\n", a.Name, s.Seed, cmp.Or(s.Error, "no validation result"))
			}
		}
	}
	if c.WallSeconds > 0 {
		fmt.Fprintf(&b, "wall time of the experiment: %s\n", formatSeconds(c.WallSeconds))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("experiment: table: %w", err)
	}
	return nil
}

// seedCells lists runs' final values by seed ("s1 0.700  s2 failed").
func seedCells(runs []SeedResult) string {
	cells := make([]string, 0, len(runs))
	for _, s := range runs {
		switch {
		case s.OK():
			cells = append(cells, fmt.Sprintf("s%d %.3f", s.Seed, *s.Final))
		case s.Error == "":
			cells = append(cells, fmt.Sprintf("s%d -", s.Seed)) // a start run that did not validate
		default:
			cells = append(cells, fmt.Sprintf("s%d failed", s.Seed))
		}
	}
	if len(cells) == 0 {
		return "no runs"
	}
	return strings.Join(cells, "  ")
}

// formatPaired writes a paired difference as mean ± std [CI low, high]
// ("*" marks an interval that excludes 0); "-" for none.
func formatPaired(p *Paired) string {
	if p == nil {
		return "-"
	}
	out := fmt.Sprintf("%+.3f ± %.3f", p.Mean, p.Std)
	if p.CILow != nil && p.CIHigh != nil {
		out += fmt.Sprintf(" [%+.3f, %+.3f]", *p.CILow, *p.CIHigh)
		if p.Excludes0() {
			out += "*"
		}
	}
	return out
}

// formatSpread writes a spread as mean ± std with format f; "-" for none.
func formatSpread(sp *Spread, f string) string {
	if sp == nil {
		return "-"
	}
	return fmt.Sprintf(f+" ± %.3f", sp.Mean, sp.Std)
}

// formatSeconds shows a duration with a precision that suits its size.
func formatSeconds(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.1fs", s)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
