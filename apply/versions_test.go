package apply

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/roleout/roleout/internal/object"
)

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"registry.k8s.io/lws/lws:v0.8.1":                  "v0.8.1",
		"registry.k8s.io/lws/lws:v0.9.0@sha256:0123abcd":  "v0.9.0",
		"registry.k8s.io/lws/lws@sha256:0123abcd":         "",
		"localhost:5000/lws":                              "",
		"localhost:5000/aibrix/controller-manager:v0.6.0": "v0.6.0",
		"lws": "",
		"":    "",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

// controllerDeployment is a Deployment with the given containers, by
// name and image.
func controllerDeployment(ns, name string, containers ...[2]string) *unstructured.Unstructured {
	var cs []any
	for _, c := range containers {
		cs = append(cs, map[string]any{"name": c[0], "image": c[1]})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"containers": cs}}},
	}}
}

// fakeVersionApplier is an Applier whose version reads go to fakes: a
// server at gitVersion and the given objects.
func fakeVersionApplier(gitVersion string, objs ...runtime.Object) (*Applier, *fakedynamic.FakeDynamicClient, *fakediscovery.FakeDiscovery) {
	client := fakedynamic.NewSimpleDynamicClient(runtime.NewScheme(), objs...)
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}, FakedServerVersion: &version.Info{GitVersion: gitVersion}}
	return &Applier{client: client, disc: disc, versions: &versionCache{}}, client, disc
}

// testControllers are the controllers roleout models (render/predict
// Controllers, which apply may not import).
var testControllers = []object.ControllerDeployment{
	{Name: "lws", Namespace: "lws-system", Deployment: "lws-controller-manager", Container: "manager"},
	{Name: "aibrix", Namespace: "aibrix-system", Deployment: "aibrix-controller-manager", Container: "manager"},
}

func TestClusterVersions(t *testing.T) {
	ctx := context.Background()
	t.Run("read", func(t *testing.T) {
		a, _, _ := fakeVersionApplier("v1.36.4",
			controllerDeployment("lws-system", "lws-controller-manager", [2]string{"manager", "registry.k8s.io/lws/lws:v0.8.1"}),
			controllerDeployment("aibrix-system", "aibrix-controller-manager",
				[2]string{"kube-rbac-proxy", "quay.io/brancz/kube-rbac-proxy:v0.15.0"}, [2]string{"manager", "aibrix/controller-manager:v0.6.0"}))
		want := object.ClusterVersions{Kubernetes: "v1.36.4", Controllers: map[string]string{"lws": "v0.8.1", "aibrix": "v0.6.0"}}
		if diff := cmp.Diff(want, a.ClusterVersions(ctx, testControllers)); diff != "" {
			t.Errorf("ClusterVersions (-want +got):\n%s", diff)
		}
	})
	t.Run("missing, forbidden or untagged is unknown", func(t *testing.T) {
		a, client, _ := fakeVersionApplier("v1.37.2",
			controllerDeployment("aibrix-system", "aibrix-controller-manager", [2]string{"manager", "aibrix/controller-manager@sha256:0123"}))
		client.PrependReactor("get", "deployments", func(action clienttesting.Action) (bool, runtime.Object, error) {
			if action.GetNamespace() == "lws-system" {
				return true, nil, apierrors.NewForbidden(deployments.GroupResource(), "lws-controller-manager", nil)
			}
			return false, nil, nil
		})
		want := object.ClusterVersions{Kubernetes: "v1.37.2"}
		if diff := cmp.Diff(want, a.ClusterVersions(ctx, testControllers)); diff != "" {
			t.Errorf("ClusterVersions (-want +got):\n%s", diff)
		}
	})
	t.Run("cached", func(t *testing.T) {
		a, client, disc := fakeVersionApplier("v1.37.2")
		a.ClusterVersions(ctx, testControllers)
		reads, versionReads := len(client.Actions()), len(disc.Actions())
		if reads != len(testControllers) {
			t.Errorf("first read: %d requests, want one get per controller: %v", reads, client.Actions())
		}
		for range 3 {
			a.ClusterVersions(ctx, testControllers)
		}
		if len(client.Actions()) != reads || len(disc.Actions()) != versionReads {
			t.Errorf("read again within %s: %d requests, then %d", versionsTTL, reads, len(client.Actions()))
		}
		for _, act := range client.Actions() {
			if act.GetVerb() != "get" {
				t.Errorf("%s %s: ClusterVersions needs only get", act.GetVerb(), act.GetResource())
			}
		}
	})
}
