package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/roleout/roleout/internal/testcluster"
)

func TestMain(m *testing.M) {
	// The demo re-executes itself to serve git; under test, itself is
	// this test binary.
	if len(os.Args) > 2 && os.Args[1] == "serve-git" {
		os.Exit(serveGit(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestDemo runs `make run`'s demo in its non-interactive mode on a fresh
// control plane and git server: it checks its own outcome (ordered waves,
// only decode rolled by the second commit, predictions equal to the
// controllers') and tears everything down.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local control plane: run without -short (make test)")
	}
	root, err := testcluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := testcluster.RoleoutBinary()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(t.TempDir(), "demo.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	o := options{dir: t.TempDir(), roleout: bin, examples: filepath.Join(root, "examples/llm-serving"), check: true, teardown: true}
	if err := run(context.Background(), o, log); err != nil {
		out, _ := os.ReadFile(log.Name())
		t.Fatalf("demo: %v\n%s", err, out)
	}
}
