package browsertest_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/org/agentevolver/internal/browsertest"
)

// Start opens a page and reads its text; without a Chromium binary it says
// so, where a test using New would be skipped. (No Output comment: what it
// prints depends on the machine.)
func Example() {
	ctx, cancel, err := browsertest.Start(context.Background(), browsertest.Config{Timeout: 30 * time.Second})
	if errors.Is(err, browsertest.ErrNoChromium) {
		fmt.Println("skipped: no chromium")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cancel()
	page := "data:text/html," + url.PathEscape(`<p id="greeting">hello from the page</p>`)
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		fmt.Println(err)
		return
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("greeting").textContent`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(text)
}
