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
	"time"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/arena/web"
	"github.com/org/agentevolver/llm"
)

const arenaServeUsage = `Usage:
  agentevolver arena serve [--addr 127.0.0.1:8000] [--model NAME=SPEC (repeatable)]
                           [--allow-origin PATTERN (repeatable)] [--max-games N]
                           [--temperature T] [--max-tokens N] [--concurrency N] [-v]

Serves the arena's web page: start Avalon games between models and watch them
live (observe mode, with a toggle for hidden information), or take a seat and
play against the models (participate mode). Open http://ADDR/ in a browser.

The new-game form offers the built-in models (informed, random, saboteur,
cautious) and every --model given here, by NAME, with the SPECs of
"agentevolver arena run" (openai:MODEL@BASE_URL for an endpoint; the key is
read from OPENAI_API_KEY). Browsers only choose among these names.

The page accepts browser requests from its own origin; --allow-origin adds
host patterns (path.Match syntax, e.g. "*.example.com:8443"). Keep --addr on
a loopback address unless the machine's network is trusted: anyone who can
reach it can start games against your endpoints.
`

func runArenaServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	var models, origins modelFlags
	fs.Var(&models, "model", "an extra seat model offered by the page, NAME=SPEC (repeatable)")
	fs.Var(&origins, "allow-origin", "an extra browser origin host pattern (repeatable)")
	maxGames := fs.Int("max-games", web.DefaultMaxGames, "games running at once")
	temperature := fs.Float64("temperature", 0.7, "sampling temperature of endpoint models")
	maxTokens := fs.Int("max-tokens", 2048, "completion bound of endpoint models")
	concurrency := fs.Int("concurrency", 8, "requests in flight per endpoint model")
	personTimeout := fs.Duration("person-timeout", web.DefaultPersonTimeout, "how long a person's question waits with their page closed before the game stops (negative: for ever)")
	verbose := fs.Bool("v", false, "log games and connections to stderr")
	fs.Usage = func() { fmt.Fprint(stderr, arenaServeUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *maxGames <= 0 {
		return errors.New("--max-games must be positive")
	}
	if *personTimeout == 0 {
		return errors.New("--person-timeout must not be 0 (negative waits for ever)")
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	entrants := web.DefaultModels()
	for _, m := range models {
		e, err := parseEntrant(m, *concurrency, logger)
		if err != nil {
			return err
		}
		entrants = replaceEntrant(entrants, e)
	}
	srv, err := web.New(web.Config{
		Models:         entrants,
		Game:           avalon.Config{Chat: llm.ChatOptions{Temperature: llm.Float(*temperature), MaxTokens: *maxTokens}},
		MaxGames:       *maxGames,
		PersonTimeout:  *personTimeout,
		OriginPatterns: origins,
		Logger:         logger,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	fmt.Fprintf(stdout, "arena: serving http://%s/ (Ctrl-C stops)\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Close the games and sockets first (the http.Server does not track
	// hijacked WebSocket connections), then drain plain requests.
	_ = srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	<-served
	fmt.Fprintln(stdout, "arena: stopped")
	return nil
}

// replaceEntrant puts e in place of the entrant of the same name, or at
// the end.
func replaceEntrant(list []arena.Entrant, e arena.Entrant) []arena.Entrant {
	for i := range list {
		if list[i].Name == e.Name {
			list[i] = e
			return list
		}
	}
	return append(list, e)
}
