package shapes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files is a layout: file contents by slash-separated path.
type Files map[string]string

// Write writes files under root.
func (f Files) Write(root string) error {
	for name, content := range f {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Flat returns an overlay of n objects at dir (four fifths ConfigMaps,
// one fifth Deployments, in four files), in namespace ns.
func Flat(dir, ns string, n int) Files {
	out := Files{}
	const files = 4
	var res []string
	for f := range files {
		var b strings.Builder
		for i := f; i < n; i += files {
			if i%5 == 4 {
				fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%05d
  annotations: {roleout.dev/role: role-%d}
  labels: {app.kubernetes.io/part-of: bench}
spec:
  selector:
    matchLabels: {app: app-%05d}
  template:
    metadata:
      labels: {app: app-%05d}
    spec:
      containers:
      - name: main
        image: registry.example/bench/app:1.%d.0
        env:
        - {name: CONFIG, value: cfg-%05d}
        ports:
        - containerPort: 8080
        resources:
          requests: {cpu: 10m, memory: 16Mi}
`, i, f+1, i, i, f, i)
				continue
			}
			fmt.Fprintf(&b, `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg-%05d
  annotations: {roleout.dev/role: role-%d}
  labels: {app.kubernetes.io/part-of: bench}
data:
  version: "1"
  settings.yaml: |
    index: %d
    feature-flags: [alpha, beta, gamma]
    endpoint: http://svc-%05d.example.internal:8080/v1
`, i, f+1, i, i)
		}
		name := fmt.Sprintf("role-%d.yaml", f+1)
		res = append(res, name)
		out[dir+"/"+name] = b.String()
	}
	out[dir+"/kustomization.yaml"] = fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nresources:\n- %s\n",
		ns, strings.Join(res, "\n- "))
	return out
}

// unitObjects is how many objects one unit of Rich renders: a
// Deployment, a Service, a ServiceAccount and a generated ConfigMap (the
// generated Secret is one per base).
const unitObjects = 4

// richBases is how many bases Rich spreads its units over.
const richBases = 4

// Rich returns a layout of about n objects: richBases bases under
// dir/bases, a component under dir/components/observability and the
// overlay dir/overlay (namePrefix, namespace, labels, images, patches,
// replacements) that uses them. Build dir/overlay.
func Rich(dir string, n int) Files {
	out := Files{}
	units := max(1, n/unitObjects)
	var bases []string
	for b := range richBases {
		base := fmt.Sprintf("base-%d", b)
		bases = append(bases, "../bases/"+base)
		var res strings.Builder
		var gens strings.Builder
		for u := b; u < units; u += richBases {
			file := fmt.Sprintf("unit-%05d.yaml", u)
			out[dir+"/bases/"+base+"/"+file] = richUnit(u)
			fmt.Fprintf(&gens, "- name: conf-%05d\n  literals:\n  - LEVEL=info\n  - UNIT=%d\n", u, u)
			fmt.Fprintf(&res, "- %s\n", file)
		}
		out[dir+"/bases/"+base+"/kustomization.yaml"] = fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
labels:
- pairs: {base: %s}
  includeSelectors: false
commonAnnotations:
  roleout.dev/role: role-%d
resources:
%sconfigMapGenerator:
%ssecretGenerator:
- name: token-%d
  literals: [token=base-%d]
`, base, b+1, res.String(), gens.String(), b, b)
	}
	out[dir+"/components/observability/kustomization.yaml"] = `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
commonAnnotations:
  observability.example/scrape: "true"
patches:
- target: {kind: Deployment}
  patch: |-
    - op: add
      path: /spec/template/metadata/annotations
      value: {prometheus.io/port: "9090"}
`
	out[dir+"/overlay/kustomization.yaml"] = fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: shop
namePrefix: prod-
labels:
- pairs: {env: prod}
  includeSelectors: true
resources:
- %s
- settings.yaml
components:
- ../components/observability
images:
- name: registry.example/shop/app
  newTag: "2.0.1"
patches:
- target: {kind: Deployment, labelSelector: "tier=web"}
  patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: any}
    spec:
      replicas: 3
      template:
        spec:
          containers:
          - name: app
            resources:
              limits: {memory: 256Mi}
- target: {kind: Service}
  patch: |-
    - op: replace
      path: /spec/type
      value: ClusterIP
replacements:
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=REGION].value
`, strings.Join(bases, "\n- "))
	out[dir+"/overlay/settings.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {region: eu-west-1}\n"
	return out
}

// richUnit is one unit's Deployment, Service and ServiceAccount; its
// ConfigMap and Secret come from the base's generators.
func richUnit(u int) string {
	tier := []string{"web", "worker"}[u%2]
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: unit-%05d
  labels: {tier: %s}
spec:
  selector:
    matchLabels: {unit: u%05d}
  template:
    metadata:
      labels: {unit: u%05d, tier: %s}
    spec:
      serviceAccountName: unit-%05d
      containers:
      - name: app
        image: registry.example/shop/app:1.0.0
        envFrom:
        - configMapRef: {name: conf-%05d}
        env:
        - {name: REGION, value: unset}
        - name: TOKEN
          valueFrom:
            secretKeyRef: {name: token-%d, key: token}
        volumeMounts:
        - {name: conf, mountPath: /etc/conf}
      volumes:
      - name: conf
        configMap: {name: conf-%05d}
---
apiVersion: v1
kind: Service
metadata:
  name: unit-%05d
spec:
  type: NodePort
  selector: {unit: u%05d}
  ports:
  - {port: 80, targetPort: 8080}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: unit-%05d
`, u, tier, u, u, tier, u, u, u%richBases, u, u, u, u)
}
