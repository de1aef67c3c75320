package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser tests drive Debian's chromium headless through chromedp.
// They skip only when no chromium binary is found.

// ScreenshotDirEnv names the directory the browser tests write
// screenshots of both modes into, when set.
const ScreenshotDirEnv = "AGENTEVOLVER_SCREENSHOT_DIR"

var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

func chromiumPath() string {
	if p := os.Getenv("AGENTEVOLVER_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless chromium; the returned context has run once
// (so later timeouts do not stop the browser), and deadline bounds the
// test's browser steps.
func newBrowser(t *testing.T, deadline time.Duration) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skipf("no chromium binary found (looked for %s in PATH and $AGENTEVOLVER_CHROMIUM); install Debian's chromium package", strings.Join(chromiumNames, ", "))
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("start chromium %s: %v", path, err)
	}
	ctx, cancel := context.WithTimeout(bctx, deadline)
	t.Cleanup(func() {
		cancel()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

// screenshot writes a full-page PNG into $AGENTEVOLVER_SCREENSHOT_DIR.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(ScreenshotDirEnv)
	if dir == "" {
		return
	}
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %q: %v", js, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it holds.
func waitJS(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	for !eval[bool](t, ctx, cond) {
		if err := chromedp.Do(ctx, chromedp.Sleep(20*time.Millisecond)); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// secretsShown reports whether the first hidden-information chat line is
// displayed.
const secretsShown = `(() => { const e = document.querySelector("#chat .secret"); return !!e && getComputedStyle(e).display !== "none"; })()`

// TestBrowserObserve starts a seeded game between built-in models from the
// form, watches it to the end and checks the board: quest results, the
// vote table, the winner, and the hidden-information toggle.
func TestBrowserObserve(t *testing.T) {
	ctx := newBrowser(t, 90*time.Second)
	_, ts := newTestServer(t, Config{})
	do(t, ctx, "open the form",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#model-4")),
		chromedp.SetValue(chromedp.CSS("#players"), "6"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("players").dispatchEvent(new Event("change"))`),
		chromedp.WaitVisible(chromedp.CSS("#model-5")),
		chromedp.SetValue(chromedp.CSS("#model-1"), "random"),
		chromedp.SetValue(chromedp.CSS("#seed"), "7"),
		chromedp.SetValue(chromedp.CSS("#delay"), "60"),
	)
	do(t, ctx, "start the game", chromedp.Click(chromedp.CSS("#start")))
	do(t, ctx, "see the table", chromedp.WaitVisible(chromedp.CSS("#seat-5")))
	waitJS(t, ctx, "the deal", `document.querySelectorAll("#chat .secret").length > 0`)
	if !strings.Contains(eval[string](t, ctx, `location.pathname`), "/game/") {
		t.Fatal("the form did not open the game page")
	}
	if eval[bool](t, ctx, secretsShown) {
		t.Fatal("hidden information shown before the toggle")
	}
	if eval[bool](t, ctx, `document.getElementById("reveal-label").hidden`) {
		t.Fatal("no hidden-information toggle in observe mode")
	}
	do(t, ctx, "toggle hidden information on", chromedp.Click(chromedp.CSS("#reveal")))
	if !eval[bool](t, ctx, secretsShown) {
		t.Fatal("the toggle does not show hidden information")
	}
	roles := eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".seat .role")).filter(e => getComputedStyle(e).display !== "none" && e.textContent).map(e => e.textContent)`)
	if len(roles) != 6 {
		t.Fatalf("roles shown with the toggle on: %v", roles)
	}
	waitJS(t, ctx, "a team vote", `document.querySelectorAll("#votes tbody tr").length > 0`)
	screenshot(t, ctx, "observe-running")
	do(t, ctx, "toggle hidden information off", chromedp.Click(chromedp.CSS("#reveal")))
	if eval[bool](t, ctx, secretsShown) {
		t.Fatal("the toggle does not hide hidden information again")
	}
	waitJS(t, ctx, "the end", `!document.getElementById("winner").hidden`)
	winner := eval[string](t, ctx, `document.getElementById("winner").textContent`)
	results := eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".quest[data-result]")).map(e => e.dataset.result)`)
	votes := eval[int](t, ctx, `document.querySelectorAll("#votes tbody tr").length`)
	status := eval[string](t, ctx, `document.getElementById("status").textContent`)
	if !strings.HasPrefix(winner, "Good wins") && !strings.HasPrefix(winner, "Evil wins") {
		t.Fatalf("winner %q", winner)
	}
	succ, fail := 0, 0
	for _, r := range results {
		if r == "success" {
			succ++
		} else {
			fail++
		}
	}
	if succ < 3 && fail < 3 || votes < len(results) || status != StatusFinished {
		t.Fatalf("quests %v, %d vote rows, status %q", results, votes, status)
	}
	// Once the game is over the roles are public.
	roles = eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".seat .role")).filter(e => getComputedStyle(e).display !== "none" && e.textContent).map(e => e.textContent)`)
	if len(roles) != 6 {
		t.Fatalf("roles after the end: %v", roles)
	}
	do(t, ctx, "toggle on", chromedp.Click(chromedp.CSS("#reveal")))
	screenshot(t, ctx, "observe-end")
	do(t, ctx, "back to the list", chromedp.Navigate(ts.URL+"/"))
	waitJS(t, ctx, "the game list", `document.querySelectorAll("#games tbody tr").length === 1`)
	screenshot(t, ctx, "index")
	t.Logf("%s; quests %v; %d team votes", winner, results, votes)
}

// TestBrowserParticipate: a person takes seat 1 from the form and plays a
// whole game against informed models, clicking through every decision:
// speeches, a team proposal, team votes, quest cards and the
// assassination.
func TestBrowserParticipate(t *testing.T) {
	ctx := newBrowser(t, 120*time.Second)
	// The form's seed is ignored in participate mode (the server refuses a
	// person game's seed); the server's draw deals seed 7's hand.
	_, ts := newTestServer(t, Config{}, dealing(7))
	do(t, ctx, "fill the form",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#model-4")),
		chromedp.SetValue(chromedp.CSS("#mode"), "participate"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("mode").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.CSS("#person-seat"), "1"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("person-seat").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.CSS("#all-models"), "informed"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("all-models").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.CSS("#seed"), "7"),
		chromedp.SetValue(chromedp.CSS("#delay"), "0"),
		chromedp.Click(chromedp.CSS("#start")),
		chromedp.WaitVisible(chromedp.CSS("#seat-4")),
		chromedp.WaitVisible(chromedp.CSS("#you")),
	)
	if !eval[bool](t, ctx, `document.getElementById("reveal-label").hidden`) {
		t.Fatal("a person's page offers the hidden-information toggle")
	}
	if eval[bool](t, ctx, `document.getElementById("stop").hidden`) {
		t.Fatal("the person's page offers no stop button")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#chat .secret").length`); n != 0 {
		t.Fatalf("the person's page holds %d hidden-information lines", n)
	}
	role := eval[string](t, ctx, `document.getElementById("you").dataset.role`)
	if role == "" {
		t.Fatal("the person is not told their role")
	}
	const state = `(() => { if (!document.getElementById("winner").hidden) return "end"; const q = document.getElementById("question"); if (q.hidden || !q.dataset.qid) return "wait"; return q.dataset.qid + ":" + q.dataset.action; })()`
	answered := map[string]bool{}
	count := map[string]int{}
	shot := false
	for {
		s := eval[string](t, ctx, state)
		if s == "end" {
			break
		}
		if s == "wait" || answered[s] {
			if err := chromedp.Do(ctx, chromedp.Sleep(20*time.Millisecond)); err != nil {
				t.Fatalf("waiting for a question (answered %v): %v", count, err)
			}
			continue
		}
		answered[s] = true
		action := s[strings.Index(s, ":")+1:]
		count[action]++
		if !shot && action == "team_vote" {
			screenshot(t, ctx, "participate-question")
			shot = true
		}
		if action == "team" {
			screenshot(t, ctx, "participate-team")
		}
		switch action {
		case "discuss":
			do(t, ctx, "speak",
				chromedp.SendKeys(chromedp.CSS("#speech"), fmt.Sprintf("Person here, turn %d. I have a good feeling about Player 0.", count[action])),
				chromedp.Click(chromedp.CSS("#submit-speech")))
		case "team":
			size := eval[int](t, ctx, `+document.getElementById("team-choices").dataset.teamSize`)
			steps := []chromedp.Action[chromedp.Void]{}
			for i := range size {
				steps = append(steps, chromedp.Click(chromedp.CSS(fmt.Sprintf("#team-choices input[data-seat='%d']", i))))
			}
			steps = append(steps, chromedp.WaitEnabled(chromedp.CSS("#submit-team")), chromedp.Click(chromedp.CSS("#submit-team")))
			do(t, ctx, "propose a team", steps...)
		case "team_vote":
			b := "#approve"
			if count[action]%3 == 0 {
				b = "#reject"
			}
			do(t, ctx, "vote", chromedp.Click(chromedp.CSS(b)))
		case "quest_vote":
			do(t, ctx, "play a card", chromedp.Click(chromedp.CSS("#success")))
		case "assassinate":
			do(t, ctx, "assassinate",
				chromedp.Click(chromedp.CSS("#target-choices input")),
				chromedp.Click(chromedp.CSS("#submit-target")))
		default:
			t.Fatalf("unknown action %q", action)
		}
	}
	if errText := eval[string](t, ctx, `document.getElementById("qerror").textContent`); errText != "" {
		t.Fatalf("the server refused an answer: %s", errText)
	}
	// Seed 7 seats the person as the Assassin, leader once, on quests, and
	// Good completes three quests: every kind of decision comes up.
	for _, a := range []string{"discuss", "team", "team_vote", "quest_vote", "assassinate"} {
		if count[a] == 0 {
			t.Fatalf("no %s question; answered %v", a, count)
		}
	}
	said := eval[int](t, ctx, `Array.from(document.querySelectorAll("#chat .line.you")).filter(e => e.textContent.includes("Person here")).length`)
	if said != count["discuss"] {
		t.Fatalf("%d of the person's %d speeches shown", said, count["discuss"])
	}
	roles := eval[int](t, ctx, `Array.from(document.querySelectorAll(".seat .role")).filter(e => e.textContent).length`)
	if roles != 5 {
		t.Fatalf("%d roles shown after the end", roles)
	}
	screenshot(t, ctx, "participate-end")
	t.Logf("played %s: %v; %s", role, count, eval[string](t, ctx, `document.getElementById("winner").textContent`))
}
