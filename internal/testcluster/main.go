package testcluster

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// Main starts one cluster for a test package, stores it in *c, runs the
// package's tests and stops the cluster. It returns the exit code for
// os.Exit. When a test fails, it prints the tail of every component's log.
// An interrupt stops the cluster before the process exits; a test binary
// that dies outright (timeout panic, SIGKILL) takes its processes with it
// through the parent-death signal.
//
//	var cluster *testcluster.Cluster
//
//	func TestMain(m *testing.M) { os.Exit(testcluster.Main(m, testcluster.DefaultOptions(), &cluster)) }
//
// With -short (make test-unit) no cluster starts and *c stays nil; tests
// that need it call Require, which skips them.
func Main(m *testing.M, opts Options, c **Cluster) int {
	flag.Parse()
	if testing.Short() || fuzzing() {
		return m.Run()
	}
	cl, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "testcluster: control plane ready in %s (%s)\n", cl.StartDuration.Round(1e6), cl.Config.Host)
	*c = cl
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			cl.Stop()
			os.Exit(130)
		}
	}()
	code := m.Run()
	signal.Stop(sigs)
	close(sigs)
	if code != 0 {
		fmt.Fprintf(os.Stderr, "testcluster: tests failed; component log tails:\n%s", cl.LogTails(40))
	}
	cl.Stop()
	return code
}

// fuzzing reports whether the test binary runs a fuzz target, which
// needs no cluster.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// Require skips t when no cluster runs (go test -short) and otherwise
// returns c, printing the components' log tails if t fails.
func Require(t testing.TB, c *Cluster) *Cluster {
	t.Helper()
	if c == nil {
		t.Skip("needs the local control plane: run without -short (make test)")
	}
	c.LogsOnFailure(t)
	return c
}

// LogsOnFailure prints the tail of every component's log when t fails.
func (c *Cluster) LogsOnFailure(t testing.TB) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("component log tails:\n%s", c.LogTails(40))
		}
	})
}
