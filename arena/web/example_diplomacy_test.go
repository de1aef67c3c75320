package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/arena/web"
)

// Start a seeded Diplomacy game between the built-in greedy bots over the
// JSON API and read its log (the reference's game_log.json shape) once it
// is over. A browser would open the returned URL instead, and follow the
// game live on the map over /ws/diplomacy/{id}; a person plays a power
// with "person_power" and the returned token.
func Example_diplomacy() {
	srv, err := web.New(web.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	seed, rounds := uint64(42), 0
	body, _ := json.Marshal(web.DipNewGameRequest{Models: []string{"greedy"}, Seed: &seed, MaxPhases: 6, NegotiationRounds: &rounds})
	resp, err := http.Post(ts.URL+"/api/diplomacy/games", "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	var created web.DipNewGameResponse
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	fmt.Println("page:", created.URL[:len("/diplomacy/")], "models:", created.Game.Models)

	// Wait for the end (a page would follow the socket instead).
	var info web.DipGameInfo
	for {
		resp, err := http.Get(ts.URL + "/api/diplomacy/games")
		if err != nil {
			fmt.Println(err)
			return
		}
		var list []web.DipGameInfo
		_ = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if len(list) == 1 && list[0].Status != web.StatusRunning && list[0].Log {
			info = list[0]
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("status:", info.Status, "phases:", info.Phases)
	resp, err = http.Get(ts.URL + "/api/diplomacy/games/" + created.Game.ID + "/log")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var l dipgame.Log
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("log:", l.MapName, len(l.Game.Phases), "phases, first", l.Game.Phases[0].Phase, "orders of FRANCE", l.Game.Phases[0].Orders["FRANCE"])
	// Output:
	// page: /diplomacy/ models: [greedy greedy greedy greedy greedy greedy greedy]
	// status: finished phases: 6
	// log: standard 6 phases, first S1901M orders of FRANCE [F BRE - ENG A MAR - SPA A PAR - BUR]
}
