package render

import (
	"os"
	"testing"
)

// TestMain runs the render sandbox as the roleout binary make build made
// (ROLEOUT_BINARY), when there is one, instead of this race-built test
// binary: the child's code is the same, its start far cheaper. Run by
// hand without it, the test binary serves its own renders.
func TestMain(m *testing.M) {
	SandboxExecutable = os.Getenv("ROLEOUT_BINARY")
	os.Exit(m.Run())
}
