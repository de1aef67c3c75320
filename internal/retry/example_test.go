package retry_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/org/agentevolver/internal/retry"
)

func ExampleBackoff() {
	b := retry.Backoff{Base: time.Second, Max: 10 * time.Second}
	for n := range 5 {
		fmt.Println(n, b.Ceiling(n))
	}
	// A seeded source pins the jittered waits, here in [2s, 4s).
	d := b.Delay(2, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(d >= 2*time.Second && d < 4*time.Second)
	// Output:
	// 0 1s
	// 1 2s
	// 2 4s
	// 3 8s
	// 4 10s
	// true
}

func ExampleParseRetryAfter() {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"120", "Wed, 01 Jan 2025 12:00:30 GMT", "-1", "soon", "1e9"} {
		d, ok := retry.ParseRetryAfter(v, now)
		fmt.Println(d, ok)
	}
	// Output:
	// 2m0s true
	// 30s true
	// 0s false
	// 0s false
	// 24h0m0s true
}
