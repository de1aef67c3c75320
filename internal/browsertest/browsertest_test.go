package browsertest_test

import (
	"context"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/org/agentevolver/internal/browsertest"
)

// page shows "waiting" and, 100ms after loading, the text "ready" and a
// 200×100 red box: WaitJS must wait for it.
const page = `<!doctype html><html><body style="margin:0;background:#fff">
<p id="state">waiting</p>
<div id="box" style="width:200px;height:100px;background:rgb(255,0,0)" hidden></div>
<script>setTimeout(() => { document.getElementById("state").textContent = "ready"; document.getElementById("box").hidden = false; }, 100)</script>
</body></html>`

// TestBrowserPage opens a page from an httptest server, waits for its
// script, reads the text back and takes both kinds of screenshot into
// AGENTEVOLVER_SCREENSHOT_DIR.
func TestBrowserPage(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 30 * time.Second, Width: 640, Height: 480})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	t.Setenv(browsertest.ScreenshotDirEnv, dir)

	browsertest.Do(t, ctx, "open the page", chromedp.Navigate(ts.URL+"/"))
	browsertest.WaitJS(t, ctx, "the script", `document.getElementById("state").textContent === "ready"`)
	if got := browsertest.Eval[string](t, ctx, `document.getElementById("state").textContent`); got != "ready" {
		t.Fatalf("state %q, want ready", got)
	}
	if w := browsertest.Eval[int](t, ctx, `window.innerWidth`); w != 640 {
		t.Errorf("window is %d pixels wide, want 640", w)
	}

	img := browsertest.ScreenshotElement(t, ctx, "#box", "box")
	b := img.Bounds()
	if b.Dx() < 190 || b.Dx() > 210 || b.Dy() < 90 || b.Dy() > 110 {
		t.Errorf("box screenshot is %v, want about 200×100", b)
	}
	r, g, bl, _ := img.At(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()/2).RGBA()
	if r>>8 < 240 || g>>8 > 15 || bl>>8 > 15 {
		t.Errorf("box centre is (%d, %d, %d), want red", r>>8, g>>8, bl>>8)
	}
	browsertest.Screenshot(t, ctx, "page")
	for _, name := range []string{"box.png", "page.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestBrowserWaitTimesOut: a condition that never holds fails the test
// once the context ends, rather than polling for ever.
func TestBrowserWaitTimesOut(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Config{Timeout: 30 * time.Second})
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		browsertest.WaitJS(ft, short, "nothing", `false`)
	}()
	<-done
	if ft.msg == "" {
		t.Fatal("WaitJS returned on a condition that never holds")
	}
	t.Logf("WaitJS failed with %q", ft.msg)
}

// fatalRecorder records a Fatalf and ends the goroutine that called it,
// as testing does, without failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalRecorder) Helper() {}

// TestNoChromium: with no binary to be found Start returns ErrNoChromium
// and New skips the test.
func TestNoChromium(t *testing.T) {
	t.Setenv(browsertest.ChromiumEnv, "")
	t.Setenv("PATH", t.TempDir())
	if p := browsertest.ChromiumPath(); p != "" {
		t.Fatalf("ChromiumPath() = %q with an empty PATH", p)
	}
	if _, _, err := browsertest.Start(context.Background(), browsertest.Config{}); !errors.Is(err, browsertest.ErrNoChromium) {
		t.Fatalf("Start: %v, want ErrNoChromium", err)
	}
	var sub *testing.T
	t.Run("new", func(t *testing.T) {
		sub = t
		browsertest.New(t, browsertest.Config{})
		t.Error("New returned without a browser")
	})
	if !sub.Skipped() {
		t.Error("New did not skip the test")
	}
}

// TestChromiumEnv: ChromiumEnv wins over PATH, and a binary that does not
// start is an error, not ErrNoChromium.
func TestChromiumEnv(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-browser")
	t.Setenv(browsertest.ChromiumEnv, missing)
	if p := browsertest.ChromiumPath(); p != missing {
		t.Fatalf("ChromiumPath() = %q, want %q", p, missing)
	}
	_, _, err := browsertest.Start(context.Background(), browsertest.Config{})
	if err == nil || errors.Is(err, browsertest.ErrNoChromium) {
		t.Fatalf("Start with a missing binary: %v", err)
	}
}
