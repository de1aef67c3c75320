package models_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/models"
)

// Resolve turns a builtin: path into a directory holding the policy's
// Hugging Face files; any other path is returned as it is.
func ExampleResolve() {
	root, _ := os.MkdirTemp("", "models")
	defer os.RemoveAll(root)
	dir, err := models.Dir(models.ToolworldBase, root)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json", "README.md"} {
		_, err := os.Stat(filepath.Join(dir, f))
		fmt.Println(f, err == nil)
	}
	plain, _ := models.Resolve("runs/toolworld/final")
	fmt.Println(plain)
	// Output:
	// config.json true
	// model.safetensors true
	// tokenizer.json true
	// README.md true
	// runs/toolworld/final
}
