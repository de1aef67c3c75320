package envservice

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// authRealm is the realm a 401 answer names in its WWW-Authenticate header.
const authRealm = "agentevolver env service"

// Details of the 401 answers. They never repeat the token that was sent.
const (
	detailNoToken = `authentication required: send the env service's token as "Authorization: Bearer <token>" ` +
		`(envclient.Config.Token, env.token in a trainer configuration)`
	detailBadToken = "invalid bearer token: send the token the env service was started with"
)

// errBadToken reports a ServerConfig.Token that no client could send.
var errBadToken = errors.New("envservice: ServerConfig.Token must be printable ASCII without spaces")

// validToken reports whether tok can travel in an Authorization header as
// a bearer credential: printable ASCII, no spaces (RFC 6750's b64token is a
// subset). Empty is not valid.
func validToken(tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// bearerToken extracts the credential of an Authorization header value of
// the form "Bearer <token>" (the scheme is case-insensitive, as RFC 7235
// says; surrounding spaces are tolerated). It reports false for any other
// scheme, an empty credential or one with inner spaces.
func bearerToken(header string) (string, bool) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	cred = strings.TrimSpace(cred)
	if !validToken(cred) {
		return "", false
	}
	return cred, true
}

// tokenHash is what the server keeps of its token: comparing fixed-size
// hashes in constant time reveals neither the token nor its length.
func tokenHash(tok string) [sha256.Size]byte { return sha256.Sum256([]byte(tok)) }

// authenticate checks r's bearer token. It answers nil when the request
// may proceed, else the 401 to send (with its WWW-Authenticate header set
// on w).
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) *reply {
	values := r.Header.Values("Authorization")
	detail, challenge := detailNoToken, `Bearer realm="`+authRealm+`"`
	if len(values) > 0 {
		tok, ok := bearerToken(values[0])
		if ok && len(values) == 1 {
			h := tokenHash(tok)
			if subtle.ConstantTimeCompare(h[:], s.tokenHash[:]) == 1 {
				return nil
			}
		}
		detail = detailBadToken
		challenge += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	rep := fail(http.StatusUnauthorized, detail)
	return &rep
}
