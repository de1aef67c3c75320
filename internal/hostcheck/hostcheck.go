package hostcheck

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"path"
	"strings"
)

// ErrForeignHost reports a request for a name that is not the server's.
var ErrForeignHost = errors.New("hostcheck: host is not this server's")

// Check refuses a request whose Host header names neither the server (the
// address the connection arrived on, or localhost, 127.0.0.1 or [::1] with
// its port) nor matches one of allowed: path.Match patterns of host or
// host:port, a pattern without a port matching any port. Without a Host
// (HTTP/1.0) a request is not from a browser and passes; where the
// connection's address is unknown (a handler called without a net/http
// server) the loopback names pass with any port.
func Check(r *http.Request, allowed []string) error {
	if r.Host == "" {
		return nil
	}
	host := strings.ToLower(r.Host)
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
		if r.TLS != nil {
			port = "443"
		}
	}
	loopback := name == "localhost" || name == "127.0.0.1" || name == "::1"
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		if loopback {
			return nil
		}
	} else if lname, lport, err := net.SplitHostPort(local.String()); err == nil && port == lport {
		if loopback || sameHost(name, lname) {
			return nil
		}
	}
	bare := name // the host without its port, as a pattern without one names it
	if strings.Contains(bare, ":") {
		bare = "[" + bare + "]"
	}
	for _, p := range allowed {
		p = strings.ToLower(p)
		target := host
		if _, _, err := net.SplitHostPort(p); err != nil {
			target = bare
		}
		if ok, _ := path.Match(p, target); ok {
			return nil
		}
	}
	h := r.Host
	if len(h) > 64 {
		h = h[:64] + "…"
	}
	return fmt.Errorf("%w: %q", ErrForeignHost, h)
}

// sameHost reports whether two host names or addresses are the same,
// comparing IP addresses by value.
func sameHost(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	ia, ib := net.ParseIP(a), net.ParseIP(b)
	return ia != nil && ib != nil && ia.Equal(ib)
}
