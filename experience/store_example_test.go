package experience_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/experience"
)

// A store file survives a restart; a workspace remembers its embedder and
// refuses another; a file that is not a store is refused and left alone.
func ExampleOpenStoreFile() {
	dir, err := os.MkdirTemp("", "experience")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "experience.db")
	ctx := context.Background()

	file, err := experience.OpenStoreFile(path, experience.StoreOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ws, err := file.Workspace("appworld", experience.NewLocalEmbedder(256))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = ws.Add(ctx, []experience.Experience{
		{Text: "Log in before listing the playlists.", Key: "list my spotify playlists"},
		{Text: "Amounts are in cents.", Key: "total of venmo payments"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	file.Close()

	file, err = experience.OpenStoreFile(path, experience.StoreOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer file.Close()
	_, err = file.Workspace("appworld", experience.NewLocalEmbedder(512))
	fmt.Println("other embedder refused:", errors.Is(err, experience.ErrEmbedderMismatch))
	ws, err = file.Workspace("appworld", experience.NewLocalEmbedder(256))
	if err != nil {
		fmt.Println(err)
		return
	}
	matches, err := ws.Search(ctx, "show the playlists in my spotify account", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (similarity %.2f)\n", matches[0].Text, matches[0].Similarity)

	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("not a database"), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	_, err = experience.OpenStoreFile(notes, experience.StoreOptions{})
	fmt.Println("foreign file refused:", errors.Is(err, experience.ErrCorruptStore))
	// Output:
	// other embedder refused: true
	// Log in before listing the playlists. (similarity 0.60)
	// foreign file refused: true
}
