package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// accessReader is a ServiceAccount of the test's and where the view
// ClusterRole is bound to it: in namespaces, and cluster-wide when
// cluster is set.
type accessReader struct {
	name       string
	namespaces []string
	cluster    bool
}

// TestKubernetesAuthScope serves apps that write into one namespace,
// two, a Namespace and cluster-scoped objects, with and without a
// namespace of their own, to readers whose view ClusterRole is bound in
// some namespaces or cluster-wide, through the real API server's
// TokenReview and SubjectAccessReview: each reader sees (overview, app
// page, /api/v1, the event stream) exactly the apps all of whose
// namespaces they may read, cluster-wide for cluster-scoped objects.
func TestKubernetesAuthScope(t *testing.T) {
	testcluster.Require(t, cluster)
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	const nsA, nsB = "scope-a", "scope-b"
	readers := []accessReader{
		{"only-a", []string{nsA}, false},
		{"a-and-b", []string{nsA, nsB}, false},
		{"only-default", []string{"default"}, false},
		{"default-and-b", []string{"default", nsB}, false},
		{"everywhere", nil, true},
	}
	tokens := accessReaders(ctx, t, cs, "scope-readers", []string{nsA, nsB}, readers)

	cm := func(ns string) object.Ref {
		return object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "x"}
	}
	inventory := func(refs ...object.Ref) []byte {
		var inv []model.InventoryEntry
		for _, r := range refs {
			inv = append(inv, model.InventoryEntry{Ref: r, Role: "r", UpgradeOrder: 1})
		}
		return mustYAML(t, inv)
	}
	apps := []config.App{
		// Written first: its event comes before onens's.
		{Name: "two", Namespace: nsA},
		{Name: "onens", Namespace: nsA},
		{Name: "ownns", Namespace: nsA},
		{Name: "clusterwide", Namespace: nsA},
		{Name: "nons"},
		{Name: "fresh"},
		{Name: "allowed", Namespace: nsA, AllowedNamespaces: []string{nsB, "team-*"}},
	}
	b := &fakeBranch{head: "c1", files: map[string][]byte{}}
	for _, a := range apps[:5] {
		b.files[status.StatusPath(a.Name)] = mustYAML(t, appStatus(a.Name))
	}
	b.files[status.InventoryPath("two")] = inventory(cm(nsA), cm(nsB))
	b.files[status.InventoryPath("onens")] = inventory(cm(nsA))
	b.files[status.InventoryPath("ownns")] = inventory(object.Ref{APIVersion: "v1", Kind: "Namespace", Name: nsA}, cm(nsA))
	b.files[status.InventoryPath("clusterwide")] = inventory(cm(nsA), object.Ref{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "x"})
	b.files[status.InventoryPath("nons")] = inventory(cm(nsB))

	want := map[string][]string{
		"only-a":        {"onens", "ownns"},
		"a-and-b":       {"two", "onens", "ownns", "allowed"},
		"only-default":  {"fresh"},
		"default-and-b": {"nons", "fresh"},
		"everywhere":    {"two", "onens", "ownns", "clusterwide", "nons", "fresh", "allowed"},
	}

	log := logrus.New()
	log.SetOutput(io.Discard)
	store := NewStore(b, "roleout/status", apps, log)
	store.Refresh(ctx)
	srv := NewServer(store, NewKubernetes(cs), log)
	srv.Heartbeat = 50 * time.Millisecond
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close) // after the streams' cleanups close them

	streams := map[string]*sse{}
	for _, r := range readers {
		streams[r.name] = openAuthedSSE(t, hs.URL+"/events", tokens[r.name])
		if _, name, _ := streams[r.name].next(t); name != "hello" {
			t.Fatalf("%s: the stream's first event is %q", r.name, name)
		}
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			token, seen := tokens[r.name], map[string]bool{}
			for _, a := range want[r.name] {
				seen[a] = true
			}
			code, body := authedGet(t, hs.URL+"/api/v1/apps", token)
			var list struct {
				Apps []struct {
					App string `json:"app"`
				} `json:"apps"`
			}
			if err := json.Unmarshal([]byte(body), &list); code != http.StatusOK || err != nil {
				t.Fatalf("/api/v1/apps: %d %v\n%s", code, err, body)
			}
			var got []string
			for _, a := range list.Apps {
				got = append(got, a.App)
			}
			if strings.Join(got, " ") != strings.Join(want[r.name], " ") {
				t.Errorf("/api/v1/apps lists %v, want %v", got, want[r.name])
			}
			_, overview := authedGet(t, hs.URL+"/", token)
			for _, a := range apps {
				paths := map[string]int{"/apps/" + a.Name: http.StatusNotFound, "/api/v1/apps/" + a.Name: http.StatusNotFound, "/api/v1/apps/" + a.Name + "/history": http.StatusNotFound}
				if seen[a.Name] {
					for p := range paths {
						paths[p] = http.StatusOK
					}
				}
				for p, wantCode := range paths {
					if code, _ := authedGet(t, hs.URL+p, token); code != wantCode {
						t.Errorf("GET %s: %d, want %d", p, code, wantCode)
					}
				}
				if listed := strings.Contains(overview, `href="/apps/`+a.Name+`"`); listed != seen[a.Name] {
					t.Errorf("the overview lists %s: %v, want %v", a.Name, listed, seen[a.Name])
				}
			}
		})
	}

	// A new status commit changes two, onens and fresh (in this order of
	// events): each stream's first app event is the first of them its
	// reader may see.
	changed := map[string][]byte{}
	for _, a := range []string{"two", "onens", "fresh"} {
		st := appStatus(a)
		st.Phase = status.PhaseSucceeded
		changed[status.StatusPath(a)] = mustYAML(t, st)
	}
	b.set("c2", changed)
	store.Refresh(ctx)
	for r, first := range map[string]string{"only-a": "onens", "a-and-b": "two", "only-default": "fresh", "default-and-b": "fresh", "everywhere": "two"} {
		if got := firstAppEvent(t, streams[r]); got != first {
			t.Errorf("%s's stream: the first app event is %q's, want %q's", r, got, first)
		}
	}
}

// firstAppEvent returns the app of the next "app" event of s.
func firstAppEvent(t *testing.T, s *sse) string {
	t.Helper()
	for {
		_, name, data := s.next(t)
		if name != "app" {
			continue
		}
		var e Event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		return e.App
	}
}

// accessReaders makes namespace home and a ServiceAccount in it for each
// reader, binds the view ClusterRole to it where it says (making
// namespaces), waits until the API server's authorizer grants what the
// bindings say, and returns a token of each, by name.
func accessReaders(ctx context.Context, t *testing.T, cs kubernetes.Interface, home string, namespaces []string, readers []accessReader) map[string]string {
	t.Helper()
	for _, ns := range append([]string{home}, namespaces...) {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	view := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"}
	tokens := map[string]string{}
	for _, r := range readers {
		if _, err := cs.CoreV1().ServiceAccounts(home).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: r.name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: r.name, Namespace: home}}
		name := home + "-" + r.name
		for _, ns := range r.namespaces {
			rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: view, Subjects: subjects}
			if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if r.cluster {
			crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: view, Subjects: subjects}
			if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := cs.CoreV1().ServiceAccounts(home).CreateToken(ctx, r.name, &authnv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tokens[r.name] = tr.Status.Token
		// The authorizer reads bindings from its informers: wait until it
		// grants them, so that no denial is cached by the view.
		user := "system:serviceaccount:" + home + ":" + r.name
		grants := r.namespaces
		if r.cluster {
			grants = []string{""} // every namespace
		}
		for _, ns := range grants {
			deadline := time.Now().Add(30 * time.Second)
			for {
				sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
					User: user, ResourceAttributes: &authzv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{})
				if err == nil && sar.Status.Allowed {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s may not get pods in %q 30 s after its binding: %v", user, ns, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	return tokens
}

func authedGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func openAuthedSSE(t *testing.T, url, token string) *sse {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return &sse{resp: resp, r: bufio.NewReader(resp.Body)}
}
