package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/org/agentevolver/arena/web"
)

// Serve the arena page, start a seeded game between built-in models over
// the JSON API and read its log once it is over. A browser would open the
// returned URL instead, and follow the game live over /ws/{id}.
func Example() {
	srv, err := web.New(web.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	seed := uint64(42)
	body, _ := json.Marshal(web.NewGameRequest{Players: 5, Models: []string{"informed"}, Seed: &seed})
	resp, err := http.Post(ts.URL+"/api/games", "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	var created web.NewGameResponse
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	fmt.Println("players:", created.Game.Players, "models:", created.Game.Models)

	// Wait for the end (a page would follow /ws/{id} instead).
	for {
		resp, err := http.Get(ts.URL + "/api/games")
		if err != nil {
			fmt.Println(err)
			return
		}
		var list []web.GameInfo
		_ = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if len(list) == 1 && list[0].Status != web.StatusRunning {
			fmt.Println("status:", list[0].Status)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err = http.Get(ts.URL + "/api/games/" + created.Game.ID + "/log")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var last struct {
		Type     string `json:"type"`
		GoodWins *bool  `json:"good_wins"`
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		_ = json.Unmarshal(sc.Bytes(), &last)
	}
	fmt.Println("last event:", last.Type, "good wins:", *last.GoodWins)
	// Output:
	// players: 5 models: [informed informed informed informed informed]
	// status: finished
	// last event: game_end good wins: false
}
