package runview

import (
	"context"
	"encoding/json"
	"image"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/org/agentevolver/internal/browsertest"
	"github.com/org/agentevolver/runlog/episodelog"
)

// The browser tests drive Debian's chromium headless through
// internal/browsertest, as arena/web's do. They skip only when no chromium
// binary is found ($AGENTEVOLVER_CHROMIUM names one); .ci/run installs it.
// $AGENTEVOLVER_SCREENSHOT_DIR keeps the screenshots.

// setSelect sets a form control's value and fires its change event.
func setSelect(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	v, _ := json.Marshal(value)
	browsertest.Eval[bool](t, ctx, `(() => { const e = document.getElementById("`+id+`"); e.value = `+string(v)+`; e.dispatchEvent(new Event(e.tagName === "INPUT" ? "input" : "change")); return true; })()`)
}

// pixelsNear counts the pixels within tol of the colour (r, g, b) in each
// channel.
func pixelsNear(img image.Image, r, g, b, tol int) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if abs(int(pr>>8)-r) <= tol && abs(int(pg>>8)-g) <= tol && abs(int(pb>>8)-b) <= tol {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestBrowserViewer walks the page as a person would: a run's curves, the
// experiment's arms compared, then the episodes filtered by outcome and
// cause, one opened with its conversation and token view; screenshots of
// each are checked for the colours they must show. An episode appended
// while the page is open shows up; the line being written never breaks it.
func TestBrowserViewer(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 60 * time.Second, Width: 1400, Height: 1000})
	dir := makeRuns(t)
	_, ts := newTestServer(t, dir)
	browsertest.Do(t, ctx, "open the page", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#charts .chart")))
	setSelect(t, ctx, "run", "0/run-a")
	browsertest.WaitJS(t, ctx, "run-a's charts", `!!document.querySelector('svg[data-metric="prm/step_accuracy"]')`)
	for _, m := range []string{"reward/mean", "reward/success", "val/success", "actor/kl_loss", "actor/pg_loss", "time/step_s", "prm/step_accuracy", "exp/injected_share"} {
		if !browsertest.Eval[bool](t, ctx, `!!document.querySelector('svg[data-metric="`+m+`"] path')`) {
			t.Errorf("no curve of %s", m)
		}
	}
	sections := browsertest.Eval[string](t, ctx, `[...document.querySelectorAll("#charts h2")].map(h => h.textContent).join("|")`)
	if !strings.Contains(sections, "Self-attributing (prm/)") || !strings.Contains(sections, "Self-navigating (exp/)") {
		t.Errorf("sections %q", sections)
	}
	// NaN at step 3 is left out of reward/mean: 9 points of 10 steps.
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll('svg[data-metric="reward/mean"] circle').length`); n != 9 {
		t.Errorf("reward/mean has %d points, want 9", n)
	}
	img := browsertest.ScreenshotElement(t, ctx, "#charts", "viewer-curves")
	if n := pixelsNear(img, 0x25, 0x63, 0xeb, 30); n < 200 {
		t.Errorf("curves screenshot has %d pixels of the curve colour", n)
	}

	browsertest.Do(t, ctx, "open Compare", chromedp.Click(chromedp.CSS(`.tab[data-tab="compare"]`)))
	browsertest.WaitJS(t, ctx, "the comparison", `document.querySelectorAll("#cmp-chart path").length >= 7`)
	if got := browsertest.Eval[string](t, ctx, `document.getElementById("cmp-metric").value`); got != "val/success" {
		t.Errorf("compare metric %q, want val/success", got)
	}
	means := browsertest.Eval[string](t, ctx, `[...document.querySelectorAll("#cmp-chart path")].map(p => p.dataset.series).filter(s => s.includes("mean")).join("|")`)
	if means != "exp/arm-a (mean of 2)|exp/arm-b (mean of 2)" {
		t.Errorf("mean curves %q", means)
	}
	img = browsertest.ScreenshotElement(t, ctx, "#cmp-chart", "viewer-compare")
	if a, b := pixelsNear(img, 0x25, 0x63, 0xeb, 30), pixelsNear(img, 0xdc, 0x26, 0x26, 30); a < 100 || b < 100 {
		t.Errorf("compare screenshot: %d pixels of arm-a's colour, %d of arm-b's", a, b)
	}

	browsertest.Do(t, ctx, "open Episodes", chromedp.Click(chromedp.CSS(`.tab[data-tab="episodes"]`)))
	rows := `document.querySelectorAll("#ep-list tbody tr").length`
	browsertest.WaitJS(t, ctx, "the episode list", rows+` === 12`)
	setSelect(t, ctx, "f-outcome", "failed")
	browsertest.WaitJS(t, ctx, "failed episodes", rows+` === 2`)
	if got := browsertest.Eval[string](t, ctx, `[...document.getElementById("f-cause").options].map(o => o.value).join(",")`); got != ",create,step" {
		t.Errorf("cause choices %q", got)
	}
	setSelect(t, ctx, "f-cause", "step")
	browsertest.WaitJS(t, ctx, "the step failure", rows+` === 1`)
	browsertest.Do(t, ctx, "open it", chromedp.Click(chromedp.CSS("#ep-list tbody tr")))
	browsertest.WaitJS(t, ctx, "its detail", `!!document.querySelector("#ep-detail h3") && document.querySelector("#ep-detail h3").textContent.includes("failed: step")`)
	if !browsertest.Eval[bool](t, ctx, `document.getElementById("ep-detail").textContent.includes("connection reset")`) {
		t.Error("the failure's message is not shown")
	}
	setSelect(t, ctx, "f-cause", "")
	setSelect(t, ctx, "f-outcome", "success")
	browsertest.WaitJS(t, ctx, "successes", rows+` === 5`)
	setSelect(t, ctx, "f-task", "task-1")
	browsertest.WaitJS(t, ctx, "task-1's successes", rows+` === 2`)
	browsertest.Do(t, ctx, "open it", chromedp.Click(chromedp.CSS("#ep-list tbody tr")))
	browsertest.WaitJS(t, ctx, "the token view", `document.querySelectorAll("#ep-detail .tok").length === 9`)
	if h := browsertest.Eval[string](t, ctx, `document.querySelector("#ep-detail h3").textContent`); h != "Training task task-1 (Final Reward 1)" {
		t.Errorf("header %q", h)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#ep-detail .msg").length`); n != 4 {
		t.Errorf("%d messages shown, want 4", n)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#ep-detail .tok.t1").length`); n != 3 {
		t.Errorf("%d trained tokens, want 3", n)
	}
	if c := browsertest.Eval[string](t, ctx, `getComputedStyle(document.querySelector("#ep-detail .tok.t1")).color`); c != "rgb(9, 171, 207)" {
		t.Errorf("trained token colour %s", c)
	}
	if c := browsertest.Eval[string](t, ctx, `getComputedStyle(document.querySelector("#ep-detail .tok.t0")).color`); c != "rgb(217, 133, 16)" {
		t.Errorf("context token colour %s", c)
	}
	if title := browsertest.Eval[string](t, ctx, `document.querySelector("#ep-detail .tok.t1").title`); title != "id 7001 · trained" {
		t.Errorf("hover title %q", title)
	}
	browsertest.Eval[bool](t, ctx, `document.querySelector("#ep-detail .tok.t1").dispatchEvent(new MouseEvent("mouseenter")); true`)
	if info := browsertest.Eval[string](t, ctx, `document.getElementById("tok-info").textContent`); !strings.Contains(info, "id 7001") || !strings.Contains(info, "trained") {
		t.Errorf("token info %q", info)
	}
	img = browsertest.ScreenshotElement(t, ctx, "#ep-detail .tokens", "viewer-tokens")
	if a, b := pixelsNear(img, 9, 171, 207, 40), pixelsNear(img, 217, 133, 16, 40); a < 20 || b < 20 {
		t.Errorf("token screenshot: %d pixels of the trained colour, %d of the context colour", a, b)
	}
	browsertest.ScreenshotElement(t, ctx, "body", "viewer-episode")

	// The run goes on: the line being written completes and another
	// episode follows; the list grows on the next refresh.
	appendTo(t, filepath.Join(dir, "run-a", EpisodesFile), "ten\"}\n")
	w, err := episodelog.OpenForResume(filepath.Join(dir, "run-a", EpisodesFile), 100, episodelog.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(tokenEpisode(episodelog.PhaseTrain, 4, "task-new", 0, 1))
	w.Close()
	setSelect(t, ctx, "f-task", "")
	setSelect(t, ctx, "f-outcome", "")
	browsertest.WaitJS(t, ctx, "the new episodes", rows+` === 14`)
	if s := browsertest.Eval[string](t, ctx, `document.getElementById("status").className`); s == "error" {
		t.Errorf("the page shows an error: %s", browsertest.Eval[string](t, ctx, `document.getElementById("status").textContent`))
	}
}
