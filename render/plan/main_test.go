package plan

import (
	"os"
	"testing"

	"github.com/roleout/roleout/render"
)

// TestMain runs the render sandbox of the tests that render fixtures as
// the roleout binary make build made (ROLEOUT_BINARY), as render's tests
// do.
func TestMain(m *testing.M) {
	render.SandboxExecutable = os.Getenv("ROLEOUT_BINARY")
	os.Exit(m.Run())
}
