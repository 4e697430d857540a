// Command fluxapply is the Flux peer of roleout's benchmark (issue 10):
// it applies a directory of YAML to a cluster with Flux's own apply
// engine, fluxcd/pkg/ssa ResourceManager.ApplyAllStaged, as
// kustomize-controller does, and prints one JSON line with the elapsed
// time and the number of API requests the apply made.
//
// It is a separate Go module so that Flux's dependencies never enter
// roleout's go.mod. The benchmark harness (hack/bench/roleoutbench)
// builds it once and runs it as a subprocess:
//
//	fluxapply -kubeconfig KUBECONFIG -dir DIR [-concurrency 16]
//
// The RESTMapper is warmed up (ConfigMap, Deployment) before the clock
// starts, as in a long-running controller; client creation and reading
// the YAML are not timed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Report is the JSON line fluxapply prints.
type Report struct {
	// ElapsedNS is the time ApplyAllStaged took, in nanoseconds.
	ElapsedNS int64 `json:"elapsedNS"`
	// Requests is the number of API requests made while the clock ran.
	Requests int64 `json:"requests"`
	// Objects is the number of objects read from the directory.
	Objects int `json:"objects"`
	// Actions counts the change set's entries by action.
	Actions map[string]int `json:"actions"`
}

// countingTransport counts the requests that pass through it.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

// RoundTrip counts req and passes it on.
func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.next.RoundTrip(req)
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	dir := flag.String("dir", "", "directory of YAML files to apply")
	concurrency := flag.Int("concurrency", 0, "ResourceManager.SetConcurrency; 0 keeps the default (1)")
	qps := flag.Float64("qps", 200, "client QPS")
	burst := flag.Int("burst", 400, "client burst")
	flag.Parse()
	if err := run(*kubeconfig, *dir, *concurrency, float32(*qps), *burst); err != nil {
		fmt.Fprintln(os.Stderr, "fluxapply:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, dir string, concurrency int, qps float32, burst int) error {
	objs, err := readDir(dir)
	if err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("load kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = qps, burst, "flux-ssa-bench"
	var requests atomic.Int64
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, n: &requests} })
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return err
	}
	kube, err := client.New(cfg, client.Options{Mapper: mapper, HTTPClient: httpClient})
	if err != nil {
		return err
	}
	for _, gvk := range []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}, {Group: "apps", Version: "v1", Kind: "Deployment"}} {
		if _, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return fmt.Errorf("warm up the RESTMapper: %w", err)
		}
	}
	poller := polling.NewStatusPoller(kube, mapper, polling.Options{})
	manager := ssa.NewResourceManager(kube, poller, ssa.Owner{Field: "kustomize-controller", Group: "kustomize.toolkit.fluxcd.io"})
	if concurrency > 0 {
		manager.SetConcurrency(concurrency)
	}
	requests.Store(0)
	started := time.Now()
	cs, err := manager.ApplyAllStaged(context.Background(), objs, ssa.DefaultApplyOptions())
	elapsed := time.Since(started)
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	rep := Report{ElapsedNS: elapsed.Nanoseconds(), Requests: requests.Load(), Objects: len(objs), Actions: map[string]int{}}
	for _, e := range cs.Entries {
		rep.Actions[string(e.Action)]++
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// readDir decodes every .yaml file of dir, in name order.
func readDir(dir string) ([]*unstructured.Unstructured, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		objs, err := utils.ReadObjects(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", n, err)
		}
		out = append(out, objs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no objects in %s", dir)
	}
	return out, nil
}
