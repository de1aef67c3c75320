package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/runview"
	"golang.org/x/net/netutil"
)

// DefaultViewAddr is where `agentevolver view` listens: loopback, on the
// port of the reference's log viewer.
const DefaultViewAddr = "127.0.0.1:8181"

const viewUsage = `Usage:
  agentevolver view [--addr 127.0.0.1:8181] [--allow-host PATTERN (repeatable)] [-v] RUN_DIR...

Serves a web page over training runs: each run's metric curves (reward,
success, KL, losses, timings, the mechanisms' prm/ and exp/ metrics), the
validation curves of several runs or of an experiment's arms side by side,
and every episode the runs recorded (trainer.episode_log): the conversation
and the token view (each token coloured by whether it trains, its id on
hover), filterable by task, outcome and failure cause. Open the printed URL
in a browser.

A RUN_DIR is a run's output directory (trainer.output_dir) or a directory
with runs below it, as an experiment's output (NAME/ARM/seed-N/). The page
reads nothing outside the RUN_DIRs, follows runs while they are written and
finds runs that start later. Flags may come before or after the RUN_DIRs.

Every request must name the server in its Host header (the listen address,
or localhost, 127.0.0.1 or [::1] with the listen port); --allow-host adds
names (path.Match syntax, host or host:port) for a machine name or a
reverse proxy when --addr listens beyond loopback. Anyone who can reach the
address can read the runs: keep it on loopback unless the network is
trusted.
`

func init() {
	register(command{
		name:    "view",
		summary: "a web page over runs: metric curves, arms side by side, episodes with their token view",
		run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
			return runView(ctx, args, stdout, stderr)
		},
	})
}

func runView(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", DefaultViewAddr, "address to listen on")
	var hosts modelFlags
	fs.Var(&hosts, "allow-host", "an extra name the Host header may carry, a host or host:port pattern (repeatable)")
	verbose := fs.Bool("v", false, "log requests that fail to stderr")
	fs.Usage = func() { fmt.Fprint(stderr, viewUsage); fs.PrintDefaults() }
	var dirs []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return errHelp
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(dirs) == 0 {
		fs.Usage()
		return errors.New("view: give at least one RUN_DIR")
	}
	level := slog.LevelError
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := runview.New(runview.Config{Dirs: dirs, AllowedHosts: hosts, Logger: logger})
	if err != nil {
		return err
	}
	defer srv.Close()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	listening := ln.Addr()
	ln = netutil.LimitListener(ln, arenaMaxConnections)
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: envservice.DefaultReadHeaderTimeout,
		ReadTimeout:       envservice.DefaultReadTimeout,
		WriteTimeout:      envservice.DefaultWriteTimeout,
		IdleTimeout:       envservice.DefaultConnIdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "view: serving http://%s/ over %d run(s) (Ctrl-C stops)\n", listening, len(srv.Runs()))
	if err := serveUntilCancelled(ctx, hs, ln, nil); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "view: stopped")
	return nil
}
