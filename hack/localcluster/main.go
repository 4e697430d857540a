// Command localcluster starts and stops the local control plane that tests
// use, for a person to work with: `make cluster-up` and `make cluster-down`.
//
//	localcluster up   [-dir .cluster] [-nodes 2]
//	localcluster down [-dir .cluster]
//
// up leaves etcd, kube-apiserver, kube-controller-manager, kube-scheduler
// and kwok running in the background and prints the kubeconfig path.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/roleout/roleout/internal/testcluster"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "up" && os.Args[1] != "down") {
		fmt.Fprintln(os.Stderr, "usage: localcluster up|down [-dir DIR] [-nodes N]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", ".cluster", "directory for the cluster's certificates, data, logs and kubeconfig")
	nodes := fs.Int("nodes", 2, "number of kwok fake nodes")
	_ = fs.Parse(os.Args[2:])
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if os.Args[1] == "up" {
		err = up(abs, *nodes)
	} else {
		err = down(abs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localcluster:", err)
		os.Exit(1)
	}
}

func up(dir string, nodes int) error {
	state := filepath.Join(dir, "state.json")
	if _, err := os.Stat(state); err == nil {
		return fmt.Errorf("a cluster is already recorded in %s: run `make cluster-down` first", state)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := testcluster.DefaultOptions()
	opts.Dir, opts.Nodes, opts.Detached = dir, nodes, true
	c, err := testcluster.Start(ctx, opts)
	if err != nil {
		return err
	}
	if err := c.WriteState(state); err != nil {
		c.Stop()
		return err
	}
	fmt.Printf("local control plane ready in %s at %s\n", c.StartDuration.Round(1e6), c.Config.Host)
	fmt.Printf("  export KUBECONFIG=%s\n  kubectl get nodes\n", c.Kubeconfig)
	fmt.Printf("logs: %s/*.log; stop it with `make cluster-down`\n", dir)
	return nil
}

func down(dir string) error {
	if err := testcluster.StopState(filepath.Join(dir, "state.json")); err != nil {
		return err
	}
	fmt.Println("local control plane stopped")
	return os.RemoveAll(dir)
}
