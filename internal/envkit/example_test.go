package envkit_test

import (
	"errors"
	"fmt"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/envkit"
)

func ExampleKind() {
	errUnknownTask := envkit.Kind("myenv: unknown task", envclient.ErrBadRequest)
	err := fmt.Errorf("%w %q", errUnknownTask, "t-42")
	fmt.Println(err)
	fmt.Println(errors.Is(err, errUnknownTask), errors.Is(err, envclient.ErrBadRequest))
	// Output:
	// myenv: unknown task "t-42"
	// true true
}
