package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/roleout/roleout/status"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/sources"
)

// recordingBuilder stands in for render.Renderer: it records the source
// and options of every build and returns objs.
type recordingBuilder struct {
	objs  []*unstructured.Unstructured
	srcs  []render.Source
	opts  []render.Options
	calls map[string]render.Options // by source root
}

func (b *recordingBuilder) Build(_ context.Context, src render.Source, _ string, opts render.Options) (render.Result, error) {
	b.srcs, b.opts = append(b.srcs, src), append(b.opts, opts)
	if b.calls == nil {
		b.calls = map[string]render.Options{}
	}
	b.calls[src.Root] = opts
	var out []*unstructured.Unstructured
	for _, o := range b.objs {
		out = append(out, o.DeepCopy())
	}
	return render.Result{Objects: out}, nil
}

var permissive = config.Render{RemoteHosts: []string{"github.com"}, EnableHelm: true, EnableExec: true, MaxObjects: 7}

func TestRenderRequestTrustDomains(t *testing.T) {
	cases := []struct {
		name       string
		trust      sources.Trust
		wantDomain string
		wantExec   bool
	}{
		{"trusted snapshot: the app's own settings", sources.Trusted, "trusted", true},
		{"untrusted snapshot: exec, helm and remotes off", sources.Untrusted, "untrusted", false},
		{"unmarked snapshot counts as untrusted", "", "untrusted", false},
		{"unknown domain counts as untrusted", "weird", "untrusted", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordingBuilder{}
			k := &kustomizeRenderer{b: b}
			if _, err := k.Render(context.Background(), sources.Snapshot{Dir: "/x", Trust: tc.trust}, config.App{Path: "p", Render: permissive}); err != nil {
				t.Fatal(err)
			}
			src, opts := b.srcs[0], b.opts[0]
			if src.Domain != tc.wantDomain {
				t.Errorf("domain = %q, want %q", src.Domain, tc.wantDomain)
			}
			remote := len(opts.RemoteHosts) > 0
			if opts.EnableExec != tc.wantExec || opts.EnableHelm != tc.wantExec || remote != tc.wantExec {
				t.Errorf("exec %v helm %v remotes %v, want all %v", opts.EnableExec, opts.EnableHelm, opts.RemoteHosts, tc.wantExec)
			}
			if opts.Limits.MaxObjects != 7 {
				t.Errorf("limits not kept: maxObjects %d", opts.Limits.MaxObjects)
			}
		})
	}
}

// TestPreviewNeverRendersWithAppSettings runs the agent with the real
// kustomizeRenderer over a recording builder: the followed branch renders
// with what the app allows, a pull-request head without exec, helm and
// remote fetches, even when its fetcher calls its snapshot trusted.
func TestPreviewNeverRendersWithAppSettings(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.Render = permissive })
	b := &recordingBuilder{objs: threeRoles("decode:2")}
	h.agent.deps.Renderer = &kustomizeRenderer{b: b}
	h.fetcher.snap.Dir = "main"
	prCommit := strings.Repeat("p", 40)
	lying := &fakeFetcher{snap: sources.Snapshot{Dir: "pr", Trust: sources.Trusted,
		Revision: sources.SourceRevision{Ref: "refs/pull/1/head", Commit: prCommit}}}
	h.agent.deps.PullRequests = &fakePullRequests{heads: []sources.Head{{Ref: "refs/pull/1/head", Commit: prCommit}},
		fetchers: map[string]*fakeFetcher{"refs/pull/1/head": lying}}
	h.agent.cfg.Source.PullRequests = &config.PullRequests{Refs: []string{"refs/pull/*/head"}}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	main, pr := b.calls["main"], b.calls["pr"]
	if !main.EnableExec || !main.EnableHelm || len(main.RemoteHosts) == 0 {
		t.Errorf("the followed branch rendered without the app's settings: %+v", main)
	}
	if pr.EnableExec || pr.EnableHelm || pr.RemoteHosts != nil {
		t.Errorf("the pull-request head rendered with exec %v, helm %v, remotes %v", pr.EnableExec, pr.EnableHelm, pr.RemoteHosts)
	}
	var domains []string
	for _, s := range b.srcs {
		domains = append(domains, s.Root+":"+s.Domain)
	}
	if diff := cmp.Diff([]string{"main:trusted", "pr:untrusted"}, domains); diff != "" {
		t.Errorf("render domains (-want +got):\n%s", diff)
	}
	if _, ok := h.status.files["llm/previews/pull-1-head.json"]; !ok {
		t.Error("no preview written")
	}
}

// TestUntrustedRenderOfRemoteBase renders a real overlay with a remote
// base its app allows: as a preview it fails, saying previews never
// fetch remote bases.
func TestUntrustedRenderOfRemoteBase(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "apps", "web")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kust := "resources:\n- https://github.com/example/base//config?ref=v1\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	app := config.App{Name: "web", Path: "apps/web", Render: config.Render{RemoteHosts: []string{"github.com"}}}
	_, err := newKustomizeRenderer(0, nil).Render(context.Background(), sources.Snapshot{Dir: root, Trust: sources.Untrusted}, app)
	var untrusted *UntrustedRenderError
	if !errors.As(err, &untrusted) || !strings.Contains(err.Error(), "previews never run exec functions, helm or remote fetches") {
		t.Fatalf("err = %v, want an UntrustedRenderError saying previews never fetch remotes", err)
	}
}

func TestReconcileRefusesUntrustedSnapshot(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.fetcher.snap.Trust = sources.Untrusted
	if err := h.agent.RunOnce(context.Background()); err == nil || !strings.Contains(err.Error(), "never applied") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if len(h.applier.applied) != 0 || h.renderer.calls != 0 {
		t.Errorf("an untrusted snapshot was rendered (%d) or applied (%v)", h.renderer.calls, h.applier.applied)
	}
}

func TestPlanTrust(t *testing.T) {
	verified := &config.Config{Source: config.Source{Verify: &config.Verify{Mode: "head"}}}
	open := &config.Config{}
	cases := []struct {
		name string
		cfg  *config.Config
		ref  string
		got  sources.Trust
		want sources.Trust
	}{
		{"configured ref", open, "", "", sources.Trusted},
		{"another ref, unverified", open, "refs/pull/7/head", "", sources.Untrusted},
		{"another ref, verified", verified, "refs/heads/next", "", sources.Trusted},
		{"the source said untrusted", verified, "", sources.Untrusted, sources.Untrusted},
	}
	for _, tc := range cases {
		if got := planTrust(tc.cfg, tc.ref, tc.got); got != tc.want {
			t.Errorf("%s: trust %q, want %q", tc.name, got, tc.want)
		}
	}
}

func testObject(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name}}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

// TestPreviewReadsOnlyAppNamespaces: a pull request that adds objects in
// kube-system and cluster-scoped ones gets them compared offline; the
// cluster is read only in the app's namespace and the Namespaces its last
// inventory declares.
func TestPreviewReadsOnlyAppNamespaces(t *testing.T) {
	objs := []*unstructured.Unstructured{
		testObject("v1", "Namespace", "", "app"),
		testObject("v1", "Namespace", "", "team-b"),                          // applied before: in the inventory
		roleDeployment("web", "web", 1, "web:2"),                             // namespace app
		testObject("v1", "ConfigMap", "team-b", "settings"),                  // a Namespace of the last inventory
		testObject("v1", "ConfigMap", "kube-system", "coredns"),              // someone else's
		testObject("rbac.authorization.k8s.io/v1", "ClusterRole", "", "god"), // cluster-scoped
	}
	for _, o := range objs[3:] {
		o.SetAnnotations(map[string]string{object.RoleAnnotation: "web", object.UpgradeOrderAnnotation: "1"})
	}
	inv := []model.InventoryEntry{
		{Ref: object.Ref{APIVersion: "v1", Kind: "Namespace", Name: "team-b"}, Prerequisite: true},
		{Ref: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "kube-system", Name: "old"}, Role: "web", UpgradeOrder: 1},
		{Ref: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "app", Name: "gone"}, Role: "web", UpgradeOrder: 1},
	}
	h := newHarness(objs, func(a *config.App) {
		a.Namespace, a.Prune = "app", true
		// Allowed, so that the preview gets as far as reading the cluster.
		a.AllowedNamespaces = []string{"team-b", "kube-system"}
		a.AllowedKinds = []config.AllowedKind{{Kind: "Namespace"}, {Kind: "ConfigMap"}, {Group: "apps", Kind: "*"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}
	})
	app := h.agent.cfg.Apps[0]
	prev := &status.Records{Inventory: inv, History: map[string][]revision.RoleRevision{}}
	snap := sources.Snapshot{Trust: sources.Untrusted, Revision: sources.SourceRevision{Ref: "pr", Commit: strings.Repeat("p", 40)}}
	plan, err := h.agent.planning().plan(context.Background(), planRequest{snap: snap, app: app, prev: prev, cluster: h.agent.deps.Cluster})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := previewer{agent: h.agent, cluster: h.applier}.compare(context.Background(), app, plan, prev)
	if err != nil {
		t.Fatal(err)
	}
	reads := slices.Compact(slices.Sorted(slices.Values(h.applier.reads)))
	want := []string{"ConfigMap/app/gone", "ConfigMap/team-b/settings", "Deployment/app/web"}
	if diff := cmp.Diff(want, reads); diff != "" {
		t.Errorf("objects read from the cluster (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, s := range rep.Steps {
		for _, o := range s.Objects {
			got[o.Object.String()] = string(o.Change) + "|" + o.NotCompared
		}
	}
	wantDiff := map[string]string{
		"Namespace/app":                 "create|" + diff.OutsideAppNamespaces,
		"Namespace/team-b":              "update|" + diff.OutsideAppNamespaces,
		"Deployment/app/web":            "update|",
		"ConfigMap/team-b/settings":     "update|",
		"ConfigMap/kube-system/coredns": "create|" + diff.OutsideAppNamespaces,
		"ClusterRole/god":               "create|" + diff.OutsideAppNamespaces,
		"ConfigMap/kube-system/old":     "delete|" + diff.OutsideAppNamespaces,
	}
	if diff := cmp.Diff(wantDiff, got); diff != "" {
		t.Errorf("preview diff (-want +got):\n%s", diff)
	}
	md := status.Preview{App: app.Name, Ref: "refs/pull/1/head", Commit: snap.Revision.Commit, Plan: &model.Summary{}, Diff: rep}.Markdown()
	if !strings.Contains(md, "**create** `ConfigMap/kube-system/coredns` (web)\n\nNot compared with the cluster (outside the app's namespaces)") {
		t.Errorf("the preview does not say coredns was not compared with the cluster:\n%s", md)
	}
}

// TestDiffLiveReadsEverything: outside previews (roleout diff, dry runs)
// the whole plan is compared with the cluster.
func TestDiffLiveReadsEverything(t *testing.T) {
	objs := []*unstructured.Unstructured{testObject("v1", "ConfigMap", "kube-system", "coredns")}
	plan, err := rolePlanner{}.Plan(objs, plan.Options{App: "x"}, plan.Facts{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeApplier{}
	rep, err := diff.Live(context.Background(), f, DiffTarget(config.App{Name: "x", Namespace: "app"}), plan)
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.NotCompared(); n != 0 || !slices.Contains(f.reads, "ConfigMap/kube-system/coredns") {
		t.Errorf("DiffLive left %d objects uncompared, read %v", n, f.reads)
	}
}

// forbiddenApplier refuses every read, as the API server refuses an
// identity RBAC grants nothing.
type forbiddenApplier struct{ fakeApplier }

func (f *forbiddenApplier) Diff(_ context.Context, objs []*unstructured.Unstructured, _ apply.DiffOptions) ([]model.ObjectDiff, error) {
	f.readAll(objs)
	return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "x", errors.New("RBAC: access denied"))
}

func (f *forbiddenApplier) Live(_ context.Context, ref object.Ref) (*unstructured.Unstructured, error) {
	f.read(ref)
	return nil, nil
}

// TestPreviewIdentity: a preview reads the app's own cluster (another
// one here) as source.pullRequests.serviceAccount, never as the agent;
// without one it reads no cluster and every object says why; what the
// identity may not read is compared offline, not an error.
func TestPreviewIdentity(t *testing.T) {
	cases := []struct {
		name      string
		sa        string
		applier   func(far *fakeApplier) Cluster
		wantReads bool
		wantWhy   string // NotCompared of every object; "" when compared
	}{
		{name: "no service account", wantWhy: NoPreviewIdentity},
		{name: "service account", sa: "roleout/preview", applier: func(far *fakeApplier) Cluster { return far }, wantReads: true},
		{name: "forbidden", sa: "roleout/preview", applier: func(*fakeApplier) Cluster { return &forbiddenApplier{} },
			wantWhy: "the preview identity may not read or dry-run it: "},
		{name: "unreachable", sa: "roleout/preview", wantWhy: "cannot reach the app's cluster as roleout/preview: no route"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.Namespace, a.Kubeconfig = "app", "far.yaml" })
			far := &fakeApplier{}
			h.agent.deps.ClusterFor = func(context.Context, config.App) (Cluster, error) { return far, nil }
			var asked []string
			h.agent.deps.PreviewClusterFor = func(_ context.Context, app config.App, sa string) (ClusterReader, error) {
				asked = append(asked, app.Name+" as "+sa)
				if tc.applier == nil {
					return nil, errors.New("no route")
				}
				return tc.applier(far), nil
			}
			prCommit := strings.Repeat("p", 40)
			h.agent.deps.PullRequests = &fakePullRequests{heads: []sources.Head{{Ref: "refs/pull/1/head", Commit: prCommit}},
				fetchers: map[string]*fakeFetcher{"refs/pull/1/head": {snap: sources.Snapshot{Revision: sources.SourceRevision{Ref: "refs/pull/1/head", Commit: prCommit}}}}}
			h.agent.cfg.Source.PullRequests = &config.PullRequests{Refs: []string{"refs/pull/*/head"}, ServiceAccount: tc.sa}
			if err := h.agent.previews(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(h.applier.reads) != 0 {
				t.Errorf("the preview read the agent's cluster: %v", h.applier.reads)
			}
			if got := len(far.reads) > 0; got != tc.wantReads {
				t.Errorf("read the app's cluster: %v (%v), want %v", got, far.reads, tc.wantReads)
			}
			if tc.sa != "" && (len(asked) != 1 || asked[0] != "llm as roleout/preview") {
				t.Errorf("preview identity asked for %v", asked)
			}
			p, ok := status.ReadPreview(h.status.files, "llm", "pull-1-head")
			if !ok || p.Error != "" || p.Diff == nil {
				t.Fatalf("preview %+v (found %v)", p, ok)
			}
			n, compared := 0, 0
			for _, st := range p.Diff.Steps {
				for _, o := range st.Objects {
					n++
					switch {
					case tc.wantWhy == "" && o.NotCompared == "":
						compared++
					case tc.wantWhy == "" && o.NotCompared != diff.OutsideAppNamespaces,
						tc.wantWhy != "" && !strings.HasPrefix(o.NotCompared, tc.wantWhy):
						t.Errorf("%s: notCompared %q, want %q", o.Object, o.NotCompared, tc.wantWhy)
					}
				}
			}
			if n == 0 || (tc.wantWhy == "") != (compared > 0) {
				t.Errorf("%d objects in the preview diff, %d compared with the cluster", n, compared)
			}
		})
	}
}
