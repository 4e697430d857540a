package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The benchmark workload of issue 10: one app of 1,000 objects, 800
// ConfigMaps and 200 Deployments, in four roles of 250 (200 ConfigMaps
// and 50 Deployments each) with upgradeOrder 1 to 4.
const (
	roles              = 4
	configMapsPerRole  = 200
	deploymentsPerRole = 50
	objectsPerApp      = roles * (configMapsPerRole + deploymentsPerRole)
)

// workload is one copy of the app: its namespace and the version of each
// role. A role's version is in its ConfigMaps' data and its Deployments'
// version annotation, and with restart also in their pod templates (a
// new ReplicaSet per Deployment, as a new image would make).
type workload struct {
	namespace string
	versions  [roles]int
	// restart puts the version into the pod templates too.
	restart bool
	// replicas is every Deployment's spec.replicas (0 unless set: no pods).
	replicas int
}

// newWorkload returns the workload at version 0 in namespace ns.
func newWorkload(ns string, restart bool) *workload {
	return &workload{namespace: ns, restart: restart}
}

// bump moves role (0-based) to its next version.
func (w *workload) bump(role int) { w.versions[role]++ }

// bumpAll moves every role to its next version.
func (w *workload) bumpAll() {
	for i := range w.versions {
		w.versions[i]++
	}
}

// files returns the kustomize overlay: kustomization.yaml and one file
// per role, by name.
func (w *workload) files() map[string]string {
	out := map[string]string{}
	var res []string
	for r := range roles {
		name := fmt.Sprintf("role-%d.yaml", r+1)
		res = append(res, name)
		out[name] = w.roleFile(r)
	}
	out["kustomization.yaml"] = fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %s
resources:
- %s
`, w.namespace, strings.Join(res, "\n- "))
	return out
}

// filesAt returns files() with every path under prefix (slash-separated).
func (w *workload) filesAt(prefix string) map[string]string {
	out := map[string]string{}
	for name, content := range w.files() {
		out[prefix+"/"+name] = content
	}
	return out
}

// write writes the overlay into dir, replacing what was there.
func (w *workload) write(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, content := range w.files() {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// roleFile renders role r's 250 objects as one multi-document YAML file.
func (w *workload) roleFile(r int) string {
	var b strings.Builder
	v := w.versions[r]
	role := fmt.Sprintf("role-%d", r+1)
	meta := fmt.Sprintf("  annotations:\n    roleout.dev/role: %s\n    roleout.dev/upgrade-order: \"%d\"\n", role, r+1)
	for i := range configMapsPerRole {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg-%d-%03d
%s  labels:
    app.kubernetes.io/part-of: bench
data:
  version: "%d"
  settings.yaml: |
    role: %s
    index: %d
    feature-flags: [alpha, beta, gamma]
    endpoint: http://svc-%d-%03d.example.internal:8080/v%d
`, r+1, i, meta, v, role, i, r+1, i, v)
	}
	template := 0
	if w.restart {
		template = v
	}
	for i := range deploymentsPerRole {
		name := fmt.Sprintf("app-%d-%02d", r+1, i)
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  annotations:
    roleout.dev/role: %s
    roleout.dev/upgrade-order: "%d"
    bench.roleout.dev/version: "%d"
  labels:
    app.kubernetes.io/part-of: bench
spec:
  replicas: %d
  selector:
    matchLabels:
      app: %s
  template:
    metadata:
      labels:
        app: %s
    spec:
      containers:
      - name: main
        image: registry.example/bench/%s:1.%d.0
        args: ["--role=%s"]
        env:
        - name: CONFIG
          value: cfg-%d-%03d
        ports:
        - containerPort: 8080
        resources:
          requests: {cpu: 10m, memory: 16Mi}
`, name, role, r+1, v, w.replicas, name, name, role, template, role, r+1, i)
	}
	return b.String()
}

// objects decodes the role files into the objects the overlay renders to
// (kustomize only sets the namespace here), without running kustomize:
// for the peers' inputs and the raw loop, where the render is not what
// is measured.
func (w *workload) objects() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for r := range roles {
		dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(w.roleFile(r)), 4096)
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("decode role %d: %w", r+1, err)
			}
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			o := &unstructured.Unstructured{}
			if err := o.UnmarshalJSON(raw); err != nil {
				return nil, fmt.Errorf("decode role %d: %w", r+1, err)
			}
			o.SetNamespace(w.namespace)
			out = append(out, o)
		}
	}
	return out, nil
}
