package testcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// BinaryEnv names the environment variable through which the Makefile
// hands the tests the roleout binary it built (make build), so that the
// tests run the binary users run and no test compiles it again.
const BinaryEnv = "ROLEOUT_BINARY"

// RoleoutBinary returns the roleout command for tests that run it as a
// process: $ROLEOUT_BINARY when set (it must exist), else one built once
// per test binary into a temporary directory (go test run by hand).
var RoleoutBinary = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv(BinaryEnv); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: %w (run make build, or unset it to build one)", BinaryEnv, bin, err)
		}
		return bin, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "roleout-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "roleout")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/roleout")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build roleout: %v\n%s", err, out)
	}
	return bin, nil
})
