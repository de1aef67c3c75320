package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/org/agentevolver/internal/browsertest"
)

// The browser tests drive Debian's chromium headless through
// internal/browsertest. They skip only when no chromium binary is found;
// $AGENTEVOLVER_SCREENSHOT_DIR keeps screenshots of both modes.

// answerQuestions plays a person's side of a game page: it evaluates the
// JavaScript expression state, which yields "end" when the game is over,
// "wait" while no question is open, and "QID:KIND" for an open question,
// and calls answer once for each new question with its kind and how many
// questions of that kind have come so far, this one included. It returns
// those counts once the state is "end".
func answerQuestions(t *testing.T, ctx context.Context, state string, answer func(kind string, n int)) map[string]int {
	t.Helper()
	answered := map[string]bool{}
	count := map[string]int{}
	for {
		s := browsertest.Eval[string](t, ctx, state)
		if s == "end" {
			return count
		}
		if s == "wait" || answered[s] {
			if err := chromedp.Do(ctx, chromedp.Sleep(20*time.Millisecond)); err != nil {
				t.Fatalf("waiting for a question (answered %v): %v", count, err)
			}
			continue
		}
		answered[s] = true
		kind := s[strings.Index(s, ":")+1:]
		count[kind]++
		answer(kind, count[kind])
	}
}

// secretsShown reports whether the first hidden-information chat line is
// displayed.
const secretsShown = `(() => { const e = document.querySelector("#chat .secret"); return !!e && getComputedStyle(e).display !== "none"; })()`

// TestBrowserObserve starts a seeded game between built-in models from the
// form, watches it to the end and checks the board: quest results, the
// vote table, the winner, and the hidden-information toggle.
func TestBrowserObserve(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 90 * time.Second})
	_, ts := newTestServer(t, Config{})
	browsertest.Do(t, ctx, "open the form",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#model-4")),
		chromedp.SetValue(chromedp.CSS("#players"), "6"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("players").dispatchEvent(new Event("change"))`),
		chromedp.WaitVisible(chromedp.CSS("#model-5")),
		chromedp.SetValue(chromedp.CSS("#model-1"), "random"),
		chromedp.SetValue(chromedp.CSS("#seed"), "7"),
		chromedp.SetValue(chromedp.CSS("#delay"), "60"),
	)
	browsertest.Do(t, ctx, "start the game", chromedp.Click(chromedp.CSS("#start")))
	browsertest.Do(t, ctx, "see the table", chromedp.WaitVisible(chromedp.CSS("#seat-5")))
	browsertest.WaitJS(t, ctx, "the deal", `document.querySelectorAll("#chat .secret").length > 0`)
	if !strings.Contains(browsertest.Eval[string](t, ctx, `location.pathname`), "/game/") {
		t.Fatal("the form did not open the game page")
	}
	if browsertest.Eval[bool](t, ctx, secretsShown) {
		t.Fatal("hidden information shown before the toggle")
	}
	if browsertest.Eval[bool](t, ctx, `document.getElementById("reveal-label").hidden`) {
		t.Fatal("no hidden-information toggle in observe mode")
	}
	browsertest.Do(t, ctx, "toggle hidden information on", chromedp.Click(chromedp.CSS("#reveal")))
	if !browsertest.Eval[bool](t, ctx, secretsShown) {
		t.Fatal("the toggle does not show hidden information")
	}
	roles := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".seat .role")).filter(e => getComputedStyle(e).display !== "none" && e.textContent).map(e => e.textContent)`)
	if len(roles) != 6 {
		t.Fatalf("roles shown with the toggle on: %v", roles)
	}
	browsertest.WaitJS(t, ctx, "a team vote", `document.querySelectorAll("#votes tbody tr").length > 0`)
	browsertest.Screenshot(t, ctx, "observe-running")
	browsertest.Do(t, ctx, "toggle hidden information off", chromedp.Click(chromedp.CSS("#reveal")))
	if browsertest.Eval[bool](t, ctx, secretsShown) {
		t.Fatal("the toggle does not hide hidden information again")
	}
	browsertest.WaitJS(t, ctx, "the end", `!document.getElementById("winner").hidden`)
	winner := browsertest.Eval[string](t, ctx, `document.getElementById("winner").textContent`)
	results := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".quest[data-result]")).map(e => e.dataset.result)`)
	votes := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#votes tbody tr").length`)
	status := browsertest.Eval[string](t, ctx, `document.getElementById("status").textContent`)
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
	roles = browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".seat .role")).filter(e => getComputedStyle(e).display !== "none" && e.textContent).map(e => e.textContent)`)
	if len(roles) != 6 {
		t.Fatalf("roles after the end: %v", roles)
	}
	browsertest.Do(t, ctx, "toggle on", chromedp.Click(chromedp.CSS("#reveal")))
	browsertest.Screenshot(t, ctx, "observe-end")
	browsertest.Do(t, ctx, "back to the list", chromedp.Navigate(ts.URL+"/"))
	browsertest.WaitJS(t, ctx, "the game list", `document.querySelectorAll("#games tbody tr").length === 1`)
	browsertest.Screenshot(t, ctx, "index")
	t.Logf("%s; quests %v; %d team votes", winner, results, votes)
}

// TestBrowserParticipate: a person takes seat 1 from the form and plays a
// whole game against informed models, clicking through every decision:
// speeches, a team proposal, team votes, quest cards and the
// assassination.
func TestBrowserParticipate(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 120 * time.Second})
	// The form's seed is ignored in participate mode (the server refuses a
	// person game's seed); the server's draw deals seed 7's hand.
	_, ts := newTestServer(t, Config{}, dealing(7))
	browsertest.Do(t, ctx, "fill the form",
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
	if !browsertest.Eval[bool](t, ctx, `document.getElementById("reveal-label").hidden`) {
		t.Fatal("a person's page offers the hidden-information toggle")
	}
	if browsertest.Eval[bool](t, ctx, `document.getElementById("stop").hidden`) {
		t.Fatal("the person's page offers no stop button")
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#chat .secret").length`); n != 0 {
		t.Fatalf("the person's page holds %d hidden-information lines", n)
	}
	role := browsertest.Eval[string](t, ctx, `document.getElementById("you").dataset.role`)
	if role == "" {
		t.Fatal("the person is not told their role")
	}
	const state = `(() => { if (!document.getElementById("winner").hidden) return "end"; const q = document.getElementById("question"); if (q.hidden || !q.dataset.qid) return "wait"; return q.dataset.qid + ":" + q.dataset.action; })()`
	shot := false
	count := answerQuestions(t, ctx, state, func(action string, nth int) {
		if !shot && action == "team_vote" {
			browsertest.Screenshot(t, ctx, "participate-question")
			shot = true
		}
		if action == "team" {
			browsertest.Screenshot(t, ctx, "participate-team")
		}
		switch action {
		case "discuss":
			browsertest.Do(t, ctx, "speak",
				chromedp.SendKeys(chromedp.CSS("#speech"), fmt.Sprintf("Person here, turn %d. I have a good feeling about Player 0.", nth)),
				chromedp.Click(chromedp.CSS("#submit-speech")))
		case "team":
			size := browsertest.Eval[int](t, ctx, `+document.getElementById("team-choices").dataset.teamSize`)
			steps := []chromedp.Action[chromedp.Void]{}
			for i := range size {
				steps = append(steps, chromedp.Click(chromedp.CSS(fmt.Sprintf("#team-choices input[data-seat='%d']", i))))
			}
			steps = append(steps, chromedp.WaitEnabled(chromedp.CSS("#submit-team")), chromedp.Click(chromedp.CSS("#submit-team")))
			browsertest.Do(t, ctx, "propose a team", steps...)
		case "team_vote":
			b := "#approve"
			if nth%3 == 0 {
				b = "#reject"
			}
			browsertest.Do(t, ctx, "vote", chromedp.Click(chromedp.CSS(b)))
		case "quest_vote":
			browsertest.Do(t, ctx, "play a card", chromedp.Click(chromedp.CSS("#success")))
		case "assassinate":
			browsertest.Do(t, ctx, "assassinate",
				chromedp.Click(chromedp.CSS("#target-choices input")),
				chromedp.Click(chromedp.CSS("#submit-target")))
		default:
			t.Fatalf("unknown action %q", action)
		}
	})
	if errText := browsertest.Eval[string](t, ctx, `document.getElementById("qerror").textContent`); errText != "" {
		t.Fatalf("the server refused an answer: %s", errText)
	}
	// Seed 7 seats the person as the Assassin, leader once, on quests, and
	// Good completes three quests: every kind of decision comes up.
	for _, a := range []string{"discuss", "team", "team_vote", "quest_vote", "assassinate"} {
		if count[a] == 0 {
			t.Fatalf("no %s question; answered %v", a, count)
		}
	}
	said := browsertest.Eval[int](t, ctx, `Array.from(document.querySelectorAll("#chat .line.you")).filter(e => e.textContent.includes("Person here")).length`)
	if said != count["discuss"] {
		t.Fatalf("%d of the person's %d speeches shown", said, count["discuss"])
	}
	roles := browsertest.Eval[int](t, ctx, `Array.from(document.querySelectorAll(".seat .role")).filter(e => e.textContent).length`)
	if roles != 5 {
		t.Fatalf("%d roles shown after the end", roles)
	}
	browsertest.Screenshot(t, ctx, "participate-end")
	t.Logf("played %s: %v; %s", role, count, browsertest.Eval[string](t, ctx, `document.getElementById("winner").textContent`))
}
