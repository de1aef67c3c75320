package hostcheck

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheck(t *testing.T) {
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8181}
	for _, tc := range []struct {
		host    string
		allowed []string
		ok      bool
	}{
		{"127.0.0.1:8181", nil, true},
		{"localhost:8181", nil, true},
		{"[::1]:8181", nil, true},
		{"", nil, true},
		{"localhost:9999", nil, false},
		{"evil.example:8181", nil, false},
		{"evil.example", nil, false},
		{"box.lan:8181", []string{"box.lan"}, true},
		{"box.lan:8181", []string{"box.lan:9000"}, false},
		{"a.proxy.example", []string{"*.proxy.example"}, true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
		err := Check(r, tc.allowed)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrForeignHost)) {
			t.Errorf("host %q allowed %v: %v, want ok=%v", tc.host, tc.allowed, err, tc.ok)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = "localhost:1234"
	if err := Check(r, nil); err != nil {
		t.Errorf("loopback without a local address: %v", err)
	}
}
