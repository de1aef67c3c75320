package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/org/agentevolver/internal/browsertest"
)

// TestBrowserDiplomacyObserve starts a seeded bots-only Diplomacy game
// from the form, watches it to the end on the SVG map, steps back
// through the phase list and reads the log from the page's link.
func TestBrowserDiplomacyObserve(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 90 * time.Second})
	_, ts := newTestServer(t, Config{})
	browsertest.Do(t, ctx, "open the form",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#dip-model-TURKEY")),
		chromedp.SetValue(chromedp.CSS("#dip-model-ITALY"), "random"),
		chromedp.SetValue(chromedp.CSS("#dip-seed"), "5"),
		chromedp.SetValue(chromedp.CSS("#dip-phases"), "4"),
		chromedp.SetValue(chromedp.CSS("#dip-rounds"), "1"),
		chromedp.SetValue(chromedp.CSS("#dip-delay"), "30"),
		chromedp.Click(chromedp.CSS("#dip-start")),
	)
	browsertest.Do(t, ctx, "see the map", chromedp.WaitVisible(chromedp.CSS("#map")))
	if p := browsertest.Eval[string](t, ctx, `location.pathname`); !strings.HasPrefix(p, "/diplomacy/") {
		t.Fatalf("the form opened %s", p)
	}
	// The game may be phases ahead by now: S1901M's board is checked below.
	browsertest.WaitJS(t, ctx, "units", `document.querySelectorAll("#map .unit").length > 0`)
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#map .prov").length`); n != 75 {
		t.Fatalf("%d provinces drawn", n)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#map .edge").length`); n < 100 {
		t.Fatalf("%d borders drawn", n)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#map .sc").length`); n != 34 {
		t.Fatalf("%d supply centres drawn", n)
	}
	browsertest.WaitJS(t, ctx, "the end", `document.body.dataset.status === "finished"`)
	browsertest.Screenshot(t, ctx, "diplomacy-observe-end")
	phases := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#phases li")).map(e => e.dataset.phase + ":" + e.dataset.kind)`)
	if len(phases) != 5 || phases[0] != "S1901M:phase" || !strings.HasSuffix(phases[4], ":current") {
		t.Fatalf("phase list %v", phases)
	}
	if !strings.Contains(browsertest.Eval[string](t, ctx, `document.getElementById("result").textContent`), "Supply centres") {
		t.Fatal("no result shown")
	}
	// Step back through every processed phase: its board and orders.
	for i := 3; i >= 0; i-- {
		browsertest.Do(t, ctx, "select a phase", chromedp.Click(chromedp.CSS("#phases li[data-index='"+string(rune('0'+i))+"']")))
		if got := browsertest.Eval[string](t, ctx, `document.getElementById("map-holder").dataset.phase`); got != strings.Split(phases[i], ":")[0] {
			t.Fatalf("phase %d: map shows %s", i, got)
		}
		if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#orders-layer .order").length`); n == 0 {
			t.Fatalf("phase %s: no orders drawn", phases[i])
		}
		if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#orders .power-orders").length`); n == 0 {
			t.Fatalf("phase %s: no orders listed", phases[i])
		}
		if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#map .unit").length`); n < 20 {
			t.Fatalf("phase %s: %d units", phases[i], n)
		}
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#orders-layer .order.move").length`); n == 0 {
		t.Fatal("no move arrows in S1901M")
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#map .unit").length`); n != 22 {
		t.Fatalf("S1901M shows %d units", n)
	}
	if f := browsertest.Eval[string](t, ctx, `document.querySelector("#map .unit[data-loc='STP/SC']").dataset.type`); f != "F" {
		t.Fatalf("the unit on STP/SC is %q", f)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#map .sc[data-owner='RUSSIA']").length`); n != 4 {
		t.Fatalf("RUSSIA owns %d centres in S1901M", n)
	}
	browsertest.Screenshot(t, ctx, "diplomacy-observe-s1901m")
	// The log link serves the game's log.
	browsertest.WaitJS(t, ctx, "the log link", `!document.getElementById("log-link").hidden`)
	browsertest.Do(t, ctx, "fetch the log", chromedp.Evaluate[chromedp.Void](`fetch(document.getElementById("log-link").href).then(r => r.json()).then(l => { window.logPhases = l.game_log.phases.length; window.logMap = l.map_name; })`))
	browsertest.WaitJS(t, ctx, "the log", `window.logPhases !== undefined`)
	if n, m := browsertest.Eval[int](t, ctx, `window.logPhases`), browsertest.Eval[string](t, ctx, `window.logMap`); n != 4 || m != "standard" {
		t.Fatalf("log of %d phases, map %q", n, m)
	}
	browsertest.Do(t, ctx, "back to the list", chromedp.Navigate(ts.URL+"/"))
	browsertest.WaitJS(t, ctx, "the game list", `document.querySelectorAll("#dip-games tbody tr").length === 1`)
}

// TestBrowserDiplomacyParticipate: a person plays FRANCE from the form
// against greedy bots: writes a private message, picks orders per
// location from the page's lists (drawn on the map as they are chosen),
// sees an illegal order refused with the server's reason, and plays to
// the end.
func TestBrowserDiplomacyParticipate(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 120 * time.Second})
	_, ts := newTestServer(t, Config{}, dealing(2))
	browsertest.Do(t, ctx, "fill the form",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#dip-model-TURKEY")),
		chromedp.SetValue(chromedp.CSS("#dip-mode"), "participate"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("dip-mode").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.CSS("#dip-power"), "FRANCE"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("dip-power").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.CSS("#dip-phases"), "3"),
		chromedp.SetValue(chromedp.CSS("#dip-rounds"), "1"),
		chromedp.SetValue(chromedp.CSS("#dip-delay"), "0"),
		chromedp.Click(chromedp.CSS("#dip-start")),
		chromedp.WaitVisible(chromedp.CSS("#map")),
	)
	if !strings.Contains(browsertest.Eval[string](t, ctx, `document.getElementById("mode").textContent`), "you are FRANCE") {
		t.Fatal("the page does not say which power the person plays")
	}
	if browsertest.Eval[bool](t, ctx, `document.getElementById("stop").hidden`) {
		t.Fatal("the person's page offers no stop button")
	}
	const state = `(() => { if (document.body.dataset.status && document.body.dataset.status !== "running") return "end"; const q = document.getElementById("question"); if (q.hidden || !q.dataset.qid) return "wait"; return q.dataset.qid + ":" + q.dataset.kind; })()`
	refused := false
	count := answerQuestions(t, ctx, state, func(kind string, nth int) {
		switch kind {
		case "negotiation":
			browsertest.Do(t, ctx, "write to GERMANY",
				chromedp.SetValue(chromedp.CSS("#msg-rows .recipient"), "GERMANY"),
				chromedp.SendKeys(chromedp.CSS("#msg-rows .content"), "Keep out of Burgundy, please."),
				chromedp.Click(chromedp.CSS("#submit-messages")))
		case "orders":
			n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#controls select[data-loc]").length`)
			if n == 0 {
				t.Fatal("an orders question without locations")
			}
			// Choose a move for each unit where there is one (else keep
			// the page's default): the page draws the choice on the map.
			browsertest.Do(t, ctx, "choose orders", chromedp.Evaluate[chromedp.Void](`for (const s of document.querySelectorAll("#controls select[data-loc]")) { const o = Array.from(s.options).find(o => / - /.test(o.value) && !/ [SC] /.test(o.value) && !/VIA$/.test(o.value)); if (o) { s.value = o.value; s.dispatchEvent(new Event("change")); } }`))
			if nth == 1 {
				if d := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#orders-layer .order.draft").length`); d == 0 {
					t.Fatal("the chosen orders are not drawn")
				}
				browsertest.Screenshot(t, ctx, "diplomacy-participate-orders")
			}
			if !refused {
				refused = true
				// A tampered page sends an order the unit cannot give.
				browsertest.Do(t, ctx, "send an illegal order", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("#controls select[data-loc]"); const o = document.createElement("option"); o.value = "A PAR - MOS"; o.textContent = "A PAR - MOS"; s.appendChild(o); s.value = "A PAR - MOS"; document.getElementById("submit-orders").click(); })()`))
				browsertest.WaitJS(t, ctx, "the refusal", `document.getElementById("qerror").textContent !== ""`)
				if msg := browsertest.Eval[string](t, ctx, `document.getElementById("qerror").textContent`); !strings.Contains(msg, "not one of your possible orders") {
					t.Fatalf("refusal %q", msg)
				}
				if browsertest.Eval[bool](t, ctx, `document.getElementById("question").hidden`) {
					t.Fatal("a refused answer closed the question")
				}
				browsertest.Do(t, ctx, "undo", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("#controls select[data-loc]"); s.remove(s.options.length - 1); s.value = (Array.from(s.options).find(o => / H$/.test(o.value)) || s.options[0]).value; })()`))
			}
			browsertest.Do(t, ctx, "submit the orders", chromedp.Click(chromedp.CSS("#submit-orders")))
		default:
			t.Fatalf("unknown question kind %q", kind)
		}
	})
	if status := browsertest.Eval[string](t, ctx, `document.body.dataset.status`); status != StatusFinished {
		t.Fatalf("status %q: %s", status, browsertest.Eval[string](t, ctx, `document.getElementById("status").textContent`))
	}
	if count["negotiation"] == 0 || count["orders"] < 2 || !refused {
		t.Fatalf("answered %v", count)
	}
	// The first phase shows the person's message and orders.
	browsertest.Do(t, ctx, "select S1901M", chromedp.Click(chromedp.CSS("#phases li[data-index='0']")))
	if n := browsertest.Eval[int](t, ctx, `Array.from(document.querySelectorAll("#messages .msg.private")).filter(e => e.dataset.sender === "FRANCE" && e.dataset.recipient === "GERMANY" && e.textContent.includes("Burgundy")).length`); n != 1 {
		t.Fatalf("%d of the person's messages shown in S1901M", n)
	}
	fr := browsertest.Eval[string](t, ctx, `Array.from(document.querySelectorAll("#orders .power-orders")).map(e => e.textContent).filter(t => t.startsWith("FRANCE"))[0] || ""`)
	if fr == "" {
		t.Fatal("FRANCE's orders are not listed")
	}
	browsertest.Screenshot(t, ctx, "diplomacy-participate-end")
	t.Logf("answered %v; %s", count, fr)
}
