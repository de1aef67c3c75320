// Package browsertest drives a headless Chromium through chromedp in tests
// of the repository's web pages (arena/web, runview). It is for tests only:
// every helper but Start takes a testing.TB and ends the test on failure,
// and no non-test code may import it.
//
// A test starts the browser with New, which skips the test when no
// Chromium binary is found and fails it when one is found but does not
// start; the browser is closed when the test ends:
//
//	ctx := browsertest.New(t, browsertest.Config{Timeout: 90 * time.Second})
//	browsertest.Do(t, ctx, "open the page", chromedp.Navigate(ts.URL+"/"))
//	browsertest.WaitJS(t, ctx, "the list", `document.querySelectorAll("tr").length === 3`)
//	title := browsertest.Eval[string](t, ctx, `document.title`)
//	browsertest.Screenshot(t, ctx, "list")
//
// Two environment variables steer it. ChromiumEnv (AGENTEVOLVER_CHROMIUM)
// names the browser binary; without it the first of chromium,
// chromium-browser, google-chrome and headless-shell found in PATH is used.
// .ci/run installs Debian's chromium package, so there the browser tests
// run rather than skip. ScreenshotDirEnv (AGENTEVOLVER_SCREENSHOT_DIR)
// names a directory the screenshots are written into as NAME.png; unset,
// Screenshot takes none and ScreenshotElement keeps its image in memory.
//
// Start is the same start-up without a testing.TB, returning ErrNoChromium
// where New would skip, for callers that are not tests (an Example).
package browsertest
