package schema

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/internal/testobjects"
)

var updateScopes = flag.Bool("update-scopes", false, "rewrite scopes.txt from the linked k8s.io/kubernetes module")

// TestBuiltinScopesAreTheModule reads every discovery document of the
// k8s.io/kubernetes module go.mod selects (api/discovery) and checks that
// scopes.txt says the same of every kind, and that the module is the
// version KubernetesVersion names: an upgrade cannot leave the offline
// scope table behind.
func TestBuiltinScopesAreTheModule(t *testing.T) {
	mod := testobjects.GoModule(t, ".", "k8s.io/kubernetes")
	if mod.Version != KubernetesVersion {
		t.Errorf("roleout links k8s.io/kubernetes %s, KubernetesVersion says %s", mod.Version, KubernetesVersion)
	}
	files, err := filepath.Glob(filepath.Join(mod.Dir, "api", "discovery", "ap*__*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no discovery documents in %s/api/discovery (%v)", mod.Dir, err)
	}
	want := map[runtimeschema.GroupKind]bool{}
	for _, f := range files {
		var list struct {
			GroupVersion string `json:"groupVersion"`
			Resources    []struct {
				Name       string `json:"name"`
				Kind       string `json:"kind"`
				Namespaced bool   `json:"namespaced"`
			} `json:"resources"`
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		gv, err := runtimeschema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range list.Resources {
			if strings.Contains(r.Name, "/") { // a subresource
				continue
			}
			gk := runtimeschema.GroupKind{Group: gv.Group, Kind: r.Kind}
			if ns, seen := want[gk]; seen && ns != r.Namespaced {
				t.Errorf("%s: %s is namespaced in one version and not in another", f, gk)
			}
			want[gk] = r.Namespaced
		}
	}
	text := FormatScopes(want)
	if *updateScopes {
		if err := os.WriteFile("scopes.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if text != scopesFile {
		t.Fatalf("scopes.txt is not what k8s.io/kubernetes %s's discovery documents say: run go test ./render/schema -run %s -update-scopes", mod.Version, t.Name())
	}
	for _, c := range []struct {
		gk                runtimeschema.GroupKind
		namespaced, known bool
	}{
		{runtimeschema.GroupKind{Kind: "ConfigMap"}, true, true},
		{runtimeschema.GroupKind{Kind: "PersistentVolume"}, false, true},
		{runtimeschema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}, false, true},
		{runtimeschema.GroupKind{Group: "networking.k8s.io", Kind: "ServiceCIDR"}, false, true},
		{runtimeschema.GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}, false, false},
		{runtimeschema.GroupKind{Group: "leaderworkerset.x-k8s.io", Kind: "LeaderWorkerSet"}, true, true},
		{runtimeschema.GroupKind{Group: "orchestration.aibrix.ai", Kind: "StormService"}, true, true},
	} {
		if ns, known := BuiltinScope(c.gk); ns != c.namespaced || known != c.known {
			t.Errorf("BuiltinScope(%s) = %v, %v; want %v, %v", c.gk, ns, known, c.namespaced, c.known)
		}
	}
}

// TestWellKnownScopes: wellknown.txt parses, sorted and without a
// duplicate, and names no kind Kubernetes or a built-in CRD serves (those
// come from the module, never from the table).
func TestWellKnownScopes(t *testing.T) {
	got, err := ParseScopes(wellKnownFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimSpace(wellKnownFile), "\n") + 1; n != len(got) {
		t.Errorf("wellknown.txt has %d lines and %d kinds: a kind is listed twice", n, len(got))
	}
	if formatted := FormatScopes(got); formatted != wellKnownFile {
		t.Errorf("wellknown.txt is not sorted as FormatScopes writes it")
	}
	for gk := range got {
		if _, builtin := BuiltinScope(gk); builtin {
			t.Errorf("%s is served by Kubernetes or a built-in CRD: remove it from wellknown.txt", gk)
		}
	}
	for _, c := range []struct {
		gk         runtimeschema.GroupKind
		namespaced bool
	}{
		{runtimeschema.GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}, false},
		{runtimeschema.GroupKind{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}, true},
	} {
		if ns, ok := WellKnownScope(c.gk); !ok || ns != c.namespaced {
			t.Errorf("WellKnownScope(%s) = %v, %v; want %v", c.gk, ns, ok, c.namespaced)
		}
	}
}
