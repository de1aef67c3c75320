//go:build unix

package launcher_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/org/agentevolver/launcher"
)

// A configuration's launch section resolves into services: here the
// built-in environments served by serve-env, and an optional arena page
// that only --with arena starts.
func ExampleConfig_Services() {
	cfg := launcher.Config{Companions: map[string]launcher.Companion{
		"envs":  {Kind: launcher.KindEnv, Envs: []string{"toolworld"}},
		"arena": {Kind: launcher.KindArena, Optional: true},
	}}
	for _, with := range [][]string{nil, {"arena"}} {
		services, err := cfg.Services(with, launcher.Resolution{Self: []string{"agentevolver"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, s := range services {
			fmt.Printf("%v: %s (ready at %q)\n", with, strings.Join(s.Command, " "), s.Ready.Line)
		}
	}
	// Output:
	// []: agentevolver serve-env --addr 127.0.0.1:8080 --env toolworld (ready at "listening on http")
	// [arena]: agentevolver arena serve --addr 127.0.0.1:8000 (ready at "arena: serving http")
	// [arena]: agentevolver serve-env --addr 127.0.0.1:8080 --env toolworld (ready at "listening on http")
}

// A Launcher starts a service detached, reuses it while it runs, and stops
// its process group.
func ExampleLauncher() {
	dir, err := os.MkdirTemp("", "companions")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	l := &launcher.Launcher{Dir: dir, Host: "example"}
	svc := launcher.Service{
		Name:    "echo",
		Command: []string{"/bin/sh", "-c", "echo 'ready on http://127.0.0.1:9999/'; exec sleep 60"},
		Ready:   launcher.Ready{Line: "ready on", Timeout: 10 * time.Second},
	}
	ctx := context.Background()
	first, err := l.Start(ctx, []launcher.Service{svc})
	if err != nil {
		fmt.Println(err)
		return
	}
	again, err := l.Start(ctx, []launcher.Service{svc})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first[0].URL, again[0].Reused, again[0].PID == first[0].PID)
	stopped, err := l.Stop(ctx, "echo")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(stopped[0].Name, stopped[0].WasRunning)
	// Output:
	// http://127.0.0.1:9999/ true true
	// echo true
}
