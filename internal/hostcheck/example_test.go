package hostcheck_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/org/agentevolver/internal/hostcheck"
)

func ExampleCheck() {
	for _, host := range []string{"localhost:8181", "attacker.example:8181", "box.lan:8181"} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		fmt.Println(host, hostcheck.Check(r, []string{"box.lan"}))
	}
	// Output:
	// localhost:8181 <nil>
	// attacker.example:8181 hostcheck: host is not this server's: "attacker.example:8181"
	// box.lan:8181 <nil>
}
