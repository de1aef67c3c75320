package arena

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// RenderOptions configures Render. The zero value shows every role in name
// order.
type RenderOptions struct {
	// Roles are the role columns, in order; nil means every role any model
	// played, sorted by name. (Avalon's reference table uses Merlin,
	// Servant, Assassin, Minion.)
	Roles []string
	// Models, when set, limits the table to these models (the reference
	// shows only the configured ones).
	Models []string
}

const maxModelColumn = 28

// Render writes the leaderboard as a text table: rank, model (marked * when
// it played fewer than 80% of the games of the busiest model), Elo, games
// (seats played), wins, win rate, one win-rate column per role ("-" without
// games) and the mean of the role win rates that have games; then an
// average row (role columns weighted by games) and a balance line (fewest
// and most games, their ratio; "uneven" below 0.8).
func Render(w io.Writer, standings []Standing, opts RenderOptions) error {
	rows := standings
	if opts.Models != nil {
		keep := map[string]bool{}
		for _, m := range opts.Models {
			keep[m] = true
		}
		rows = nil
		for _, s := range standings {
			if keep[s.Name] {
				rows = append(rows, s)
			}
		}
	}
	roles := opts.Roles
	if roles == nil {
		set := map[string]bool{}
		for _, s := range rows {
			for r := range s.Roles {
				set[r] = true
			}
		}
		for r := range set {
			roles = append(roles, r)
		}
		sort.Strings(roles)
	}
	maxGames, minGames := 0, math.MaxInt
	for _, s := range rows {
		maxGames = max(maxGames, s.Games)
		minGames = min(minGames, s.Games)
	}
	header := []string{"#", "Model", "Elo", "Games", "Wins", "Win%"}
	header = append(header, roles...)
	header = append(header, "Avg")
	table := [][]string{header}
	pct := func(wins float64, games int) string {
		if games == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", 100*wins/float64(games))
	}
	var totGames int
	var totWins float64
	roleTot := make([]RoleStats, len(roles))
	for _, s := range rows {
		name := clip(s.Name, maxModelColumn)
		if maxGames > 0 && float64(s.Games) < 0.8*float64(maxGames) {
			name += "*"
		}
		row := []string{fmt.Sprint(s.Rank), name, fmt.Sprintf("%.1f", s.Elo), fmt.Sprint(s.Games), trimFloat(s.Wins), pct(s.Wins, s.Games)}
		var sumRate float64
		var nRate int
		for i, r := range roles {
			rs := s.Roles[r]
			row = append(row, pct(rs.Wins, rs.Games))
			if rs.Games > 0 {
				sumRate += 100 * rs.Wins / float64(rs.Games)
				nRate++
			}
			roleTot[i].Games += rs.Games
			roleTot[i].Wins += rs.Wins
		}
		if nRate > 0 {
			row = append(row, fmt.Sprintf("%.1f", sumRate/float64(nRate)))
		} else {
			row = append(row, "-")
		}
		totGames += s.Games
		totWins += s.Wins
		table = append(table, row)
	}
	avg := []string{"", "Average", "", fmt.Sprint(totGames), trimFloat(totWins), pct(totWins, totGames)}
	for _, rs := range roleTot {
		avg = append(avg, pct(rs.Wins, rs.Games))
	}
	avg = append(avg, "")
	table = append(table, avg)

	widths := make([]int, len(header))
	for _, row := range table {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(row []string) {
		for i, c := range row {
			pad := widths[i] - utf8.RuneCountInString(c)
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 1 { // model names left-aligned
				b.WriteString(c + strings.Repeat(" ", pad))
			} else {
				b.WriteString(strings.Repeat(" ", pad) + c)
			}
		}
		b.WriteString("\n")
	}
	rule := func() {
		n := 0
		for _, wd := range widths {
			n += wd
		}
		b.WriteString(strings.Repeat("-", n+2*(len(widths)-1)) + "\n")
	}
	line(table[0])
	rule()
	for _, row := range table[1 : len(table)-1] {
		line(row)
	}
	rule()
	line(table[len(table)-1])
	if len(rows) > 0 {
		ratio := 1.0
		if maxGames > 0 {
			ratio = float64(minGames) / float64(maxGames)
		}
		warn := ""
		if ratio < 0.8 {
			warn = " (uneven: * marks models under 80% of the most games)"
		}
		fmt.Fprintf(&b, "Games per model: min %d, max %d, balance %.3f%s\n", minGames, maxGames, ratio, warn)
	}
	_, err := io.WriteString(w, strings.TrimRight(strings.Join(trimLines(b.String()), "\n"), "\n")+"\n")
	return err
}

func trimLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func trimFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.2f", f)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
