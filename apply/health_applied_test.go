package apply

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
)

// TestWaitHealthyStartsFromTheApply: the first look of WaitHealthy at
// each object is the apply's response (WaitOptions.Applied), so a wave
// of ConfigMaps, Current once written, is waited on with no GET; without
// it each is read. A Deployment the response shows not rolled out yet is
// read again until it is.
func TestWaitHealthyStartsFromTheApply(t *testing.T) {
	ctx := context.Background()
	const ns = "applied-health"
	if _, err := clientset(t).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	counter := &listCounter{}
	var mu sync.Mutex
	deploymentGets := 0
	cfg := rest.CopyConfig(testcluster.Require(t, cluster).Config)
	cfg.Wrap(counter.wrap)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/deployments/web") {
				mu.Lock()
				deploymentGets++
				mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	a, err := New(cfg, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for i := range 5 {
		objs = append(objs, obj(t, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-%d, namespace: %s}\ndata: {v: '%d'}\n", i, ns, i)))
	}
	objs = append(objs, obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: "+ns+"}\n"+
		"spec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: registry.example/web:1}]}\n"))
	res, err := a.Apply(ctx, objs, ApplyOptions{Labels: map[string]string{object.AppLabel: "applied"}})
	if err != nil {
		t.Fatal(err)
	}
	applied := map[object.Ref]*unstructured.Unstructured{}
	for _, r := range res {
		if r.Applied == nil {
			t.Fatalf("%s: %s with no Applied object", r.Object, r.Action)
		}
		applied[r.Object] = r.Applied
	}
	counter.take()
	if err := a.WaitHealthy(ctx, objs, WaitOptions{Timeout: time.Minute, Applied: applied}); err != nil {
		t.Fatal(err)
	}
	if _, _, gets := counter.take(); gets != 0 {
		t.Errorf("waiting on 5 ConfigMaps just applied made %d GETs of them, want none", gets)
	}
	mu.Lock()
	if deploymentGets == 0 {
		t.Errorf("the Deployment, not rolled out when applied, was never read again")
	}
	mu.Unlock()
	if err := a.WaitHealthy(ctx, objs, WaitOptions{Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, _, gets := counter.take(); gets != 5 {
		t.Errorf("waiting without the apply's objects made %d GETs of the ConfigMaps, want 5", gets)
	}
}
