//go:build ignore

// This file is the main of a Kubernetes minor's prediction helper.
// hack/kubepredict builds it, without this build constraint, beside a copy
// of render/predict/kube.go, against that minor's k8s.io/kubernetes.
//
// The helper reads requests from stdin, one JSON value each, and writes
// one line of JSON for each to stdout: {"identity": {...}} or
// {"error": "..."}. It reads no file and opens no connection. With
// -version it prints the k8s.io/kubernetes version it links.

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-version" {
		fmt.Println(linked())
		return
	}
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// serve answers every request of in on out, until in ends.
func serve(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for {
		var req KubeRequest
		if err := dec.Decode(&req); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		var resp KubeAnswer
		if id, err := kubePredict(req.Kind, req.Object, req.CollisionCount); err != nil {
			resp.Error = err.Error()
		} else {
			resp.Identity = &id
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// linked returns the version of k8s.io/kubernetes the helper was built
// with.
func linked() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}
