package envservice

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Details of the 403 and 415 answers.
const (
	detailForeignOrigin = "cross-origin request refused: the Origin header names a site that is not this server, " +
		"localhost or one of the allowed origins (ServerConfig.AllowedOrigins, serve-env --allowed-origin)"
	detailContentType = "unsupported content type: send the JSON body with \"Content-Type: application/json\""
)

// normalizeOrigins returns the configured origins in the form sameOrigin
// compares: lower case, without a trailing slash. Empty entries are
// dropped.
func normalizeOrigins(origins []string) map[string]bool {
	out := make(map[string]bool, len(origins))
	for _, o := range origins {
		o = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
		if o != "" {
			out[o] = true
		}
	}
	return out
}

// checkBrowser refuses what a web page could send but a protocol client
// does not: a request from a foreign Origin (403) and a body that is not
// declared JSON (415). Browsers add Origin to every POST, fetch's no-cors
// mode and HTML forms included, and such requests can only carry the
// "simple" content types (text/plain, form encodings), so together the two
// checks keep any web page the operator visits from creating instances or
// stepping them. Requests without Origin (envclient, the Python trainer,
// curl) pass the first check. It answers nil when r may proceed.
func (s *Server) checkBrowser(r *http.Request) *reply {
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		if len(origins) > 1 || !s.allowedOrigin(r, origins[0]) {
			rep := fail(http.StatusForbidden, detailForeignOrigin)
			return &rep
		}
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		rep := fail(http.StatusUnsupportedMediaType, detailContentType)
		return &rep
	}
	return nil
}

// allowedOrigin reports whether a request from origin may proceed: an
// origin of ServerConfig.AllowedOrigins (compared whole: scheme, host and
// port), or one whose host is localhost (or a name under .localhost), a
// loopback address or the address the request arrived on (the listen
// address; with a wildcard listen address, the interface's). The port of
// such a host is not compared. "null" (a sandboxed page, a file) and
// anything unparsable are foreign.
//
// The Host header is not consulted: under DNS rebinding it names the
// attacker's domain, as Origin does, so it proves nothing, and a remote
// client may reach the server by any name.
func (s *Server) allowedOrigin(r *http.Request, origin string) bool {
	norm := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(origin)), "/")
	if s.allowedOrigins[norm] {
		return true
	}
	u, err := url.Parse(norm)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	lhost, _, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	lip := net.ParseIP(lhost)
	return lip != nil && lip.Equal(ip) && !lip.IsUnspecified()
}
