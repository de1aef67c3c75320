package browsertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumEnv names the environment variable that, when set, names the
// browser binary Start runs instead of looking in PATH.
const ChromiumEnv = "AGENTEVOLVER_CHROMIUM"

// ScreenshotDirEnv names the environment variable that, when set, names the
// directory screenshots are written into.
const ScreenshotDirEnv = "AGENTEVOLVER_SCREENSHOT_DIR"

// DefaultTimeout bounds a browser's steps when Config.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Window size used when Config.Width or Config.Height is zero.
const (
	DefaultWidth  = 1280
	DefaultHeight = 900
)

// pollInterval is how often WaitJS evaluates its condition.
const pollInterval = 20 * time.Millisecond

// ErrNoChromium is returned by Start when ChromiumEnv is unset and no
// browser binary is found in PATH.
var ErrNoChromium = errors.New("browsertest: no chromium binary found")

// chromiumNames are the programs ChromiumPath looks for in PATH, in order.
func chromiumNames() []string {
	return []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}
}

// ChromiumPath returns the browser binary Start runs: the value of
// ChromiumEnv when set, else the first of chromium, chromium-browser,
// google-chrome and headless-shell found in PATH, else "".
func ChromiumPath() string {
	if p := os.Getenv(ChromiumEnv); p != "" {
		return p
	}
	for _, n := range chromiumNames() {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Config sets up a browser. The zero value is a 1280×900 window whose
// steps must finish within DefaultTimeout.
type Config struct {
	// Timeout bounds all the browser steps run with the returned context,
	// counted from when the browser has started. Zero means DefaultTimeout.
	Timeout time.Duration
	// Width and Height are the window's size in CSS pixels. Zero means
	// DefaultWidth and DefaultHeight.
	Width, Height int
}

// Start runs ChromiumPath's browser headless (no sandbox, no GPU, no
// /dev/shm) and opens a tab. The returned context is bound to that tab and
// times out cfg.Timeout after the browser has started; the browser itself
// is not ended by that timeout, only by cancel, which the caller must call
// once done. Start returns ErrNoChromium when there is no binary, and a
// wrapped error when the binary does not start.
func Start(ctx context.Context, cfg Config) (context.Context, context.CancelFunc, error) {
	path := ChromiumPath()
	if path == "" {
		return nil, nil, fmt.Errorf("%w (looked for %s in PATH and $%s)", ErrNoChromium, strings.Join(chromiumNames(), ", "), ChromiumEnv)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Width <= 0 {
		cfg.Width = DefaultWidth
	}
	if cfg.Height <= 0 {
		cfg.Height = DefaultHeight
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(cfg.Width, cfg.Height), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	// Running no action starts the browser, so the timeout below counts
	// only the test's own steps and ending it does not end the browser.
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		return nil, nil, fmt.Errorf("browsertest: start chromium %s: %w", path, err)
	}
	tctx, cancel := context.WithTimeout(bctx, cfg.Timeout)
	return tctx, func() {
		cancel()
		cancelBrowser()
		cancelAlloc()
	}, nil
}

// New starts a browser as Start does and returns its context, closed when
// the test ends. It skips the test when no browser binary is found and
// fails it when the browser does not start.
func New(t testing.TB, cfg Config) context.Context {
	t.Helper()
	ctx, cancel, err := Start(context.Background(), cfg)
	if errors.Is(err, ErrNoChromium) {
		t.Skipf("%v; install Debian's chromium package", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return ctx
}

// Eval evaluates the JavaScript expression js in the page and returns its
// value decoded as T, failing the test on an error or exception.
func Eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %q: %v", js, err)
	}
	return v
}

// WaitJS evaluates the JavaScript condition cond every 20ms until it is
// true, failing the test, with what in the message, when ctx ends first.
func WaitJS(t testing.TB, ctx context.Context, what, cond string) {
	t.Helper()
	for !Eval[bool](t, ctx, cond) {
		if err := chromedp.Do(ctx, chromedp.Sleep(pollInterval)); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}

// Do runs the steps in order, failing the test, with what in the message,
// on the first error.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Screenshot writes a PNG of the whole page as NAME.png into the directory
// ScreenshotDirEnv names. When it is unset no screenshot is taken.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(ScreenshotDirEnv)
	if dir == "" {
		return
	}
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	save(t, dir, name, b)
}

// ScreenshotElement takes a screenshot of the first element the CSS
// selector sel matches, writes it as NAME.png into the directory
// ScreenshotDirEnv names when it is set, and returns it decoded, for the
// test to check its pixels.
func ScreenshotElement(t testing.TB, ctx context.Context, sel, name string) image.Image {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot %s: %v", sel, err)
	}
	if dir := os.Getenv(ScreenshotDirEnv); dir != "" {
		save(t, dir, name, b)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	return img
}

// save writes the PNG b as dir/NAME.png and logs where.
func save(t testing.TB, dir, name string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}
