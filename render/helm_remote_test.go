package render

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/provenance"
	"helm.sh/helm/v3/pkg/repo"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// fixtureChart is the chart of testdata/helm.
var fixtureChart = filepath.Join("testdata", "helm", "charts", "web")

// chartRepository serves a Helm chart repository on loopback: an
// index.yaml and the fixture chart packaged with Helm's library. It
// counts the requests it gets.
func chartRepository(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	chrt, err := loader.Load(fixtureChart)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tgz, err := chartutil.Save(chrt, dir)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.ServeFile(w, r, filepath.Join(dir, filepath.Base(r.URL.Path)))
	}))
	t.Cleanup(srv.Close)
	digest, err := provenance.DigestFile(tgz)
	if err != nil {
		t.Fatal(err)
	}
	index := repo.NewIndexFile()
	if err := index.MustAdd(chrt.Metadata, filepath.Base(tgz), srv.URL+"/charts", digest); err != nil {
		t.Fatal(err)
	}
	if err := index.WriteFile(filepath.Join(dir, "index.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, &n
}

// shopFromRepository is testdata/helm/apps/shop with its chart pulled
// from repoURL instead.
func shopFromRepository(t *testing.T, repoURL string) string {
	t.Helper()
	kust, err := os.ReadFile(filepath.Join("testdata", "helm", "apps", "shop", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	k := strings.Replace(string(kust), "helmGlobals:\n  chartHome: ../../charts\n", "", 1)
	k = strings.Replace(k, "- name: web\n", "- name: web\n  repo: "+repoURL+"\n  version: 1.2.3\n", 1)
	return writeTree(t, map[string]string{
		"apps/shop/kustomization.yaml": k,
		"apps/shop/values-extra.yaml":  "config:\n  greeting: bonjour\n",
	})
}

// TestHelmChartRepository: a chart pulled from a chart repository on an
// allowed host renders exactly as the same chart in the repository (the
// shop golden), bounded in bytes, without writing to the checkout; on a
// host the app does not allow, nothing is fetched and the error names
// render.remoteHosts.
func TestHelmChartRepository(t *testing.T) {
	t.Parallel()
	srv, requests := chartRepository(t)
	root := shopFromRepository(t, srv.URL)
	opts := helmOptions()

	_, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "apps/shop", opts)
	if err == nil || !strings.Contains(err.Error(), "render.remoteHosts") || !strings.Contains(err.Error(), `"127.0.0.1"`) {
		t.Fatalf("pull from a host the app does not allow: %v, want a refusal naming render.remoteHosts and the host", err)
	}
	if strings.Contains(err.Error(), "unable to run") {
		t.Errorf("the error still carries kustomize's account of the helm command: %v", err)
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("the chart repository got %d requests from a render that may reach no host", n)
	}

	opts.RemoteHosts = []string{"127.0.0.1"}
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: root, Index: indexTree(t, root)}, "apps/shop", opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "helm", "golden", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), asYAML(t, res.Objects)); diff != "" {
		t.Errorf("pulled chart renders differently from the same chart in the repository (-want +got):\n%s", diff)
	}
	if requests.Load() != 2 {
		t.Errorf("requests = %d, want 2 (index.yaml and the chart)", requests.Load())
	}
	if res.Inputs != nil {
		t.Errorf("a render that pulled a chart is cached: inputs %v", res.Inputs)
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, _ error) error {
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 2 {
		t.Errorf("the render wrote into the checkout: %v", files)
	}

	t.Run("too large", func(t *testing.T) {
		opts := opts
		opts.Limits.MaxFileBytes = 1000 // the chart archive is about 1.5 kB
		_, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "apps/shop", opts)
		if err == nil || !strings.Contains(err.Error(), "limit maxFileBytes") {
			t.Fatalf("error %v, want the per-file byte limit", err)
		}
	})
}

// TestHelmOCIRefused: an OCI registry on a host the app does not allow
// is never contacted.
func TestHelmOCIRefused(t *testing.T) {
	t.Parallel()
	srv, requests := countingServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	root := writeTree(t, map[string]string{
		"o/kustomization.yaml": "helmCharts:\n- name: web\n  repo: oci://" + host + "/charts\n  version: 1.2.3\n",
	})
	for name, hosts := range map[string][]string{"no host": nil, "another host": {"charts.example.com"}} {
		t.Run(name, func(t *testing.T) {
			opts := helmOptions()
			opts.RemoteHosts = hosts
			_, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "o", opts)
			if err == nil || !strings.Contains(err.Error(), "render.remoteHosts") {
				t.Fatalf("pull from an OCI registry the app does not allow: %v", err)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("the registry got %d requests", n)
	}
}

// TestHelmMatchesInstall: the objects of a helmCharts render are those
// Helm's own action.Install renders for `helm template` (DryRun,
// ClientOnly, Replace) with the same chart and values.
func TestHelmMatchesInstall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	copyTree(t, fixtureChart, filepath.Join(root, "charts", "web"))
	writeFile(t, filepath.Join(root, "kustomization.yaml"), "helmCharts:\n- name: web\n  releaseName: r1\n  namespace: ns1\n"+
		"  valuesInline: {replicas: 4, config: {greeting: hi}}\n  includeCRDs: true\n  kubeVersion: 1.30.0\n"+
		"  apiVersions: [monitoring.coreos.com/v1]\n")
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "", helmOptions())
	if err != nil {
		t.Fatal(err)
	}

	chrt, err := loader.Load(fixtureChart)
	if err != nil {
		t.Fatal(err)
	}
	inst := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	inst.DryRun, inst.ClientOnly, inst.Replace, inst.IncludeCRDs = true, true, true, true
	inst.ReleaseName, inst.Namespace = "r1", "ns1"
	inst.APIVersions = chartutil.VersionSet{"monitoring.coreos.com/v1"}
	if inst.KubeVersion, err = chartutil.ParseKubeVersion("1.30.0"); err != nil {
		t.Fatal(err)
	}
	rel, err := inst.Run(chrt, map[string]any{"replicas": 4, "config": map[string]any{"greeting": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	stream := rel.Manifest
	for _, h := range rel.Hooks {
		stream += "\n---\n" + h.Manifest
	}
	want := decodeStream(t, stream)
	if diff := cmp.Diff(byID(want), byID(res.Objects)); diff != "" {
		t.Errorf("render differs from action.Install (-want +got):\n%s", diff)
	}
}

func decodeStream(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// byID sorts objs by kind and name, as maps for cmp.
func byID(objs []*unstructured.Unstructured) []map[string]any {
	sort.Slice(objs, func(i, j int) bool {
		a, b := objs[i].GroupVersionKind().Kind+"/"+objs[i].GetName(), objs[j].GroupVersionKind().Kind+"/"+objs[j].GetName()
		return a < b
	})
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		// A JSON round trip gives both sides the same number types.
		data, _ := o.MarshalJSON()
		u := &unstructured.Unstructured{}
		_ = u.UnmarshalJSON(data)
		out[i] = u.Object
	}
	return out
}

// copyTree copies the files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
