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
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/arena/web"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"golang.org/x/net/netutil"
)

// arenaMaxConnections is the default bound of --max-connections: a page
// holds one socket and a few keep-alive connections, so 256 serves dozens
// of browsers while bounding descriptors and goroutines.
const arenaMaxConnections = 256

// arenaNoTimeout stands for "no limit" where net/http cannot say it (a
// zero IdleTimeout falls back to ReadTimeout).
const arenaNoTimeout = 100 * 365 * 24 * time.Hour

const arenaServeUsage = `Usage:
  agentevolver arena serve [--addr 127.0.0.1:8000] [--model NAME=SPEC (repeatable)]
                           [--allow-host PATTERN (repeatable)] [--allow-origin PATTERN (repeatable)]
                           [--max-games N] [--max-person-games N]
                           [--person-timeout D] [--answer-timeout D]
                           [--read-timeout D] [--write-timeout D] [--conn-idle-timeout D]
                           [--max-connections N]
                           [--temperature T] [--max-tokens N] [--concurrency N] [-v]

Serves the arena's web page: start Avalon or Diplomacy games between models
and watch them live (observe mode; Avalon with a toggle for hidden
information, Diplomacy on an SVG map with a list of phases to step back
through), or take a seat or a power and play against the models (participate
mode). Open http://ADDR/ in a browser.

The Avalon form offers the built-in models (informed, random, saboteur,
cautious) and every --model given here, by NAME, with the SPECs of
"agentevolver arena run" (openai:MODEL@BASE_URL for an endpoint; the key is
read from OPENAI_API_KEY). The Diplomacy form offers the Diplomacy bots
random and greedy (games run with no model at all) and every endpoint
--model (Avalon's baselines only play Avalon). Browsers only choose among
these names. A finished Diplomacy game's log (the reference's game_log.json
shape) is downloaded from its page.

Every request must name the server in its Host header: the listen address,
or localhost, 127.0.0.1 or [::1] with the listen port. Others are refused
(403), which stops a web page from reaching the server through a name that
resolves to it (DNS rebinding). --allow-host adds names (path.Match syntax,
host or host:port; without a port any port matches): the machine's name when
--addr listens beyond loopback, a reverse proxy's name, or localhost:8080
when a container maps port 8080 to the listen port. Browser requests that
start or stop games or open sockets must come from the page's own origin;
--allow-origin adds host patterns (e.g. "*.example.com:8443").

A person's game (participate mode) gets a seed drawn by the server, stops
only with its token (the page's Stop button sends it) and is stopped when a
question goes unanswered for --answer-timeout, page open or not, or when the
person's page stays closed for --person-timeout while a question waits; no
model plays the seat instead. --max-person-games bounds person games apart
from --max-games (observe games), so waiting person games never refuse
observe games.

Keep --addr on a loopback address unless the machine's network is trusted:
anyone who can reach it can start games against your endpoints.
`

func runArenaServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	var models, origins, hosts modelFlags
	fs.Var(&models, "model", "an extra seat model offered by the page, NAME=SPEC (repeatable)")
	fs.Var(&origins, "allow-origin", "an extra browser origin host pattern (repeatable)")
	fs.Var(&hosts, "allow-host", "an extra name the Host header may carry, a host or host:port pattern (repeatable)")
	maxGames := fs.Int("max-games", web.DefaultMaxGames, "observe games running at once")
	maxPersonGames := fs.Int("max-person-games", web.DefaultMaxPersonGames, "person games running at once, apart from --max-games")
	temperature := fs.Float64("temperature", 0.7, "sampling temperature of endpoint models")
	maxTokens := fs.Int("max-tokens", 2048, "completion bound of endpoint models")
	concurrency := fs.Int("concurrency", 8, "requests in flight per endpoint model")
	personTimeout := fs.Duration("person-timeout", web.DefaultPersonTimeout, "how long a person's question waits with their page closed before the game stops (negative: for ever)")
	answerTimeout := fs.Duration("answer-timeout", web.DefaultAnswerTimeout, "how long each question waits for the person's answer, page open or not, before the game stops (negative: for ever)")
	readTimeout := fs.Duration("read-timeout", envservice.DefaultReadTimeout, "longest time to receive one request, headers and body (negative: no limit beyond the 10 s header limit)")
	writeTimeout := fs.Duration("write-timeout", envservice.DefaultWriteTimeout, "longest time to send one answer (sockets have their own per-message limit; negative: no limit)")
	connIdle := fs.Duration("conn-idle-timeout", envservice.DefaultConnIdleTimeout, "close keep-alive connections idle this long (negative: never)")
	maxConns := fs.Int("max-connections", arenaMaxConnections, "most connections open at once, sockets and idle ones included; more wait to be accepted (negative: no bound)")
	verbose := fs.Bool("v", false, "log games and connections to stderr")
	fs.Usage = func() { fmt.Fprint(stderr, arenaServeUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *maxGames <= 0, *maxPersonGames <= 0:
		return errors.New("--max-games and --max-person-games must be positive")
	case *personTimeout == 0, *answerTimeout == 0:
		return errors.New("--person-timeout and --answer-timeout must not be 0 (negative waits for ever)")
	case *readTimeout == 0, *writeTimeout == 0, *connIdle == 0, *maxConns == 0:
		return errors.New("--read-timeout, --write-timeout, --conn-idle-timeout and --max-connections must not be 0 (negative: no limit)")
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	entrants, dipEntrants := web.DefaultModels(), web.DefaultDiplomacyModels()
	for _, m := range models {
		e, err := parseEntrant(m, *concurrency, logger)
		if err != nil {
			return err
		}
		entrants = replaceEntrant(entrants, e)
		if _, avalonBot := e.Model.(avalon.Random); !avalonBot {
			dipEntrants = replaceEntrant(dipEntrants, e)
		}
	}
	chat := llm.ChatOptions{Temperature: llm.Float(*temperature), MaxTokens: *maxTokens}
	srv, err := web.New(web.Config{
		Models:          entrants,
		Game:            avalon.Config{Chat: chat},
		DiplomacyModels: dipEntrants,
		Diplomacy:       dipgame.Config{Chat: chat},
		MaxGames:        *maxGames,
		MaxPersonGames:  *maxPersonGames,
		PersonTimeout:   *personTimeout,
		AnswerTimeout:   *answerTimeout,
		AllowedHosts:    hosts,
		OriginPatterns:  origins,
		Logger:          logger,
	})
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
	if *maxConns > 0 {
		ln = netutil.LimitListener(ln, *maxConns)
	}
	// The timeouts bound plain requests; a WebSocket, once upgraded, is
	// free of them (net/http clears a hijacked connection's deadlines) and
	// bounded by the page's own limits instead.
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: envservice.DefaultReadHeaderTimeout,
		ReadTimeout:       max(*readTimeout, 0),
		WriteTimeout:      max(*writeTimeout, 0),
		IdleTimeout:       *connIdle,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if hs.IdleTimeout < 0 {
		hs.IdleTimeout = arenaNoTimeout
	}
	if *readTimeout > 0 && *readTimeout < hs.ReadHeaderTimeout {
		hs.ReadHeaderTimeout = *readTimeout
	}
	fmt.Fprintf(stdout, "arena: serving http://%s/ (Ctrl-C stops)\n", listening)
	// Close the games and sockets first (the http.Server does not track
	// hijacked WebSocket connections), then drain plain requests.
	if err := serveUntilCancelled(ctx, hs, ln, func() { _ = srv.Close() }); err != nil {
		return err
	}
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
