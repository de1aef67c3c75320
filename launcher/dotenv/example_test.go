package dotenv_test

import (
	"fmt"

	"github.com/org/agentevolver/launcher/dotenv"
)

// Parse and Resolve read a .env file as python-dotenv does: ${NAME} is
// interpolated, $NAME is left for the shell, a statement that does not
// parse is skipped.
func Example() {
	text := []byte(`# companions
REME_PATH=./external/reme
REME_SCRIPT="cd $HOME && reme http.port=${REME_PORT:-8001}"
not a statement
export OPENAI_API_KEY='sk-...' # secret
`)
	bindings, skipped, err := dotenv.Parse(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range dotenv.Resolve(bindings, nil, false) {
		fmt.Printf("%s=%s\n", v.Key, v.Value)
	}
	for _, e := range skipped {
		fmt.Println(e)
	}
	// Output:
	// REME_PATH=./external/reme
	// REME_SCRIPT=cd $HOME && reme http.port=8001
	// OPENAI_API_KEY=sk-...
	// dotenv: line 4: cannot parse statement "not a statement"
}
