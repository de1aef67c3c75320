package envclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestCreateAbandonedInstanceReleased cancels a create the server is still
// working on: the call returns at once, and the instance the server starts
// anyway is released instead of living unreachable until the idle reaper.
func TestCreateAbandonedInstanceReleased(t *testing.T) {
	received := make(chan struct{})
	proceed := make(chan struct{})
	released := make(chan string, 1)
	srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) {
		switch r.RequestURI {
		case RouteCreate:
			close(received)
			<-proceed
			writeBody(w, http.StatusOK, `{"success":true,"data":{"state":[],"info":{"instance_id":"srv-7"}}}`)
		case RouteRelease:
			id, _ := r.Body["instance_id"].(string)
			released <- id
			writeBody(w, http.StatusOK, `{"success":true,"data":true}`)
		default:
			t.Errorf("unexpected request %s", r.RequestURI)
		}
	})
	c := newTestClient(t, testConfig(srv.URL))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-received
		cancel()
	}()
	_, err := c.Create(ctx, "toolworld", "t1", "", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Create error %v, want context.Canceled", err)
	}
	close(proceed)
	select {
	case id := <-released:
		if id != "srv-7" {
			t.Errorf("released %q, want srv-7", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned instance was never released")
	}
}

// TestCreateCancelledBeforeSending sends nothing for a caller that has
// already given up.
func TestCreateCancelledBeforeSending(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, _ recordedRequest) {
		writeBody(w, http.StatusOK, `{"success":true,"data":{"state":[],"info":{"instance_id":"srv-1"}}}`)
	})
	c := newTestClient(t, testConfig(srv.URL))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Create(ctx, "toolworld", "t1", "", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create error %v, want context.Canceled", err)
	}
	if n := rec.count(); n != 0 {
		t.Errorf("%d requests sent after cancellation", n)
	}
}
