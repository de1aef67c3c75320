package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// httpShutdownGrace is how long a page server waits for requests in
// flight once its command is cancelled.
const httpShutdownGrace = 5 * time.Second

// serveUntilCancelled serves hs on ln until it fails or ctx is cancelled,
// then calls beforeShutdown (when not nil: what the http.Server does not
// track, such as hijacked WebSockets) and drains plain requests.
func serveUntilCancelled(ctx context.Context, hs *http.Server, ln net.Listener, beforeShutdown func()) error {
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	if beforeShutdown != nil {
		beforeShutdown()
	}
	sctx, cancel := context.WithTimeout(context.Background(), httpShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	<-served
	return nil
}
