package apply

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/internal/testcluster"
)

// listCounter records the ConfigMap LISTs and GETs an applier makes.
type listCounter struct {
	mu                    sync.Mutex
	selected, whole, gets int
}

func (c *listCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/configmaps") {
			c.mu.Lock()
			switch {
			case !strings.HasSuffix(req.URL.Path, "/configmaps"):
				c.gets++
			case req.URL.Query().Get("labelSelector") != "":
				c.selected++
			default:
				c.whole++
			}
			c.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (c *listCounter) take() (selected, whole, gets int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	selected, whole, gets = c.selected, c.whole, c.gets
	c.selected, c.whole, c.gets = 0, 0, 0
	return
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSharedNamespaceReadsOwnObjects: in a namespace another app fills,
// an app of a few objects reads its own (a LIST selected by its label),
// not the namespace's: its update makes no other read, its install a GET
// per object. An object of the other app among its own is still found
// and refused. A large install lists the namespace once.
func TestSharedNamespaceReadsOwnObjects(t *testing.T) {
	ctx := context.Background()
	const ns = "shared-ns"
	if _, err := clientset(t).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := func(prefix string, n int) []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for i := range n {
			out = append(out, obj(t, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-%d, namespace: %s}\ndata: {v: '%d'}\n", prefix, i, ns, i)))
		}
		return out
	}
	counter := &listCounter{}
	cfg := rest.CopyConfig(testcluster.Require(t, cluster).Config)
	cfg.Wrap(counter.wrap)
	a, err := New(cfg, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	other := ApplyOptions{Labels: map[string]string{"roleout.dev/app": "other"}}
	if _, err := a.Apply(ctx, cms("other", 60), other); err != nil {
		t.Fatal(err)
	}
	if s, w, _ := counter.take(); w != 1 {
		t.Errorf("a 60-object install made %d selected and %d whole LISTs, want the namespace listed once", s, w)
	}

	mine := ApplyOptions{Labels: map[string]string{"roleout.dev/app": "mine"}}
	own := Ownership{Label: "roleout.dev/app", Value: "mine"}
	if err := a.CheckOwners(ctx, cms("mine", 5), own); err != nil {
		t.Fatal(err)
	}
	if res, err := a.Apply(ctx, cms("mine", 5), mine); err != nil || actions(res)[0] != Created {
		t.Fatalf("install: %v %v", actions(res), err)
	}
	if s, w, g := counter.take(); w != 0 || s != 2 || g != 10 {
		t.Errorf("the install of 5 objects made %d selected LISTs, %d whole and %d GETs; want 2 (owners, apply), 0 and 10", s, w, g)
	}
	update := cms("mine", 5)
	for _, o := range update {
		o.Object["data"] = map[string]any{"v": "new"}
	}
	if err := a.CheckOwners(ctx, update, own); err != nil {
		t.Fatal(err)
	}
	if res, err := a.Apply(ctx, update, mine); err != nil || actions(res)[0] != Configured {
		t.Fatalf("update: %v %v", actions(res), err)
	}
	if s, w, g := counter.take(); w != 0 || s != 2 || g != 0 {
		t.Errorf("the update of 5 objects made %d selected LISTs, %d whole and %d GETs; want 2, 0 and 0", s, w, g)
	}
	// other-0 is the other app's: the selected LIST does not hold it,
	// and the GET that follows finds it.
	taken := append(cms("mine", 5), cms("other", 1)...)
	if err := a.CheckOwners(ctx, taken, own); err == nil || !strings.Contains(err.Error(), "ConfigMap/"+ns+"/other-0: owned by app other") {
		t.Errorf("another app's object among mine: %v, want it refused", err)
	}
}
