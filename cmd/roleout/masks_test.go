package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// maskedValue is a weak Secret value: guessable from an unkeyed digest.
const maskedValue = "hunter2-weak"

// maskRE finds a keyed mask of the vault Secret's password on the status
// branch.
var maskRE = regexp.MustCompile(`password: (masked:hmac-sha256:[0-9a-f]{24})`)

// vaultFiles is an app with a Secret role and a ConfigMap role.
func vaultFiles(level string) map[string]string {
	return map[string]string{
		"apps/vault/kustomization.yaml": "namespace: vault\nresources: [namespace.yaml, secret.yaml, config.yaml]\n",
		"apps/vault/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: vault}\n",
		"apps/vault/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, annotations: {roleout.dev/role: creds}}\n" +
			"stringData: {password: " + maskedValue + "}\n",
		"apps/vault/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: conf, annotations: {roleout.dev/role: conf}}\n" +
			"data: {level: " + level + "}\n",
	}
}

// maskInstall is one install of roleout: its own status branch and its
// own namespace, which holds its mask key.
type maskInstall struct {
	repo      *testgit.Repo
	config    string
	namespace string
}

func newMaskInstall(t *testing.T, cs kubernetes.Interface, srv *testgit.Server, name string) *maskInstall {
	t.Helper()
	in := &maskInstall{repo: srv.MustRepo(t, name), namespace: "roleout-" + name}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: in.namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.repo.Commit("main", "vault", vaultFiles("info")); err != nil {
		t.Fatal(err)
	}
	in.config = writeConfig(t, in.repo.URL(), "- {name: vault, path: apps/vault}\n")
	data, _ := os.ReadFile(in.config)
	if err := os.WriteFile(in.config, append(data, "status:\n  clusterRevisions: {namespace: "+in.namespace+"}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

func (in *maskInstall) run(t *testing.T) {
	t.Helper()
	if code, out, logs := cli("run", "--once", "--config", in.config); code != exitOK {
		t.Fatalf("run --once exit %d:\n%s\n%s", code, out, logs)
	}
	for _, leak := range []string{maskedValue, base64.StdEncoding.EncodeToString([]byte(maskedValue))} {
		if strings.Contains(in.statusText(t), leak) {
			t.Errorf("the status branch holds %q", leak)
		}
	}
}

// statusText is every line of every file on the status branch.
func (in *maskInstall) statusText(t *testing.T) string {
	t.Helper()
	hits, err := in.repo.Grep("roleout/status", "")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(hits, "\n")
}

// mask returns the keyed mask of the password on the status branch.
func (in *maskInstall) mask(t *testing.T) string {
	t.Helper()
	m := maskRE.FindAllStringSubmatch(in.statusText(t), -1)
	if len(m) == 0 {
		t.Fatalf("no keyed mask of the password on the status branch:\n%s", in.statusText(t))
	}
	return m[len(m)-1][1]
}

func (in *maskInstall) key(t *testing.T, cs kubernetes.Interface) *corev1.Secret {
	t.Helper()
	s, err := cs.CoreV1().Secrets(in.namespace).Get(context.Background(), config.DefaultMaskKeySecret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the mask key Secret: %v", err)
	}
	return s
}

// TestMasksKeyedPerInstall: the agent keeps one mask key in its
// namespace; two runs of one install mask a Secret alike (its role stays
// unchanged), another install masks it otherwise, and neither the value
// nor its old unkeyed digest reaches the status branch or the cluster's
// role revisions.
func TestMasksKeyedPerInstall(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := testgit.New(t, testgit.Options{})
	a, b := newMaskInstall(t, cs, srv, "mask-a"), newMaskInstall(t, cs, srv, "mask-b")

	a.run(t)
	keyA, maskA := a.key(t, cs), a.mask(t)
	credsRev := readStatus(t, a.repo, "vault")
	if _, err := a.repo.Commit("main", "level debug", vaultFiles("debug")); err != nil {
		t.Fatal(err)
	}
	a.run(t)
	if again := a.key(t, cs); again.UID != keyA.UID || string(again.Data["key"]) != string(keyA.Data["key"]) || len(keyA.Data["key"]) != 32 {
		t.Errorf("the key Secret changed between runs (uid %s → %s) or is not 32 bytes", keyA.UID, again.UID)
	}
	if got := a.mask(t); got != maskA {
		t.Errorf("one install, two runs: mask %s then %s", maskA, got)
	}
	st := readStatus(t, a.repo, "vault")
	if r, was := statusRole(st, "creds"), statusRole(credsRev, "creds"); r == nil || was == nil || r.Result != status.RoleUnchanged || r.RevisionName != was.RevisionName {
		t.Errorf("the Secret's role after an unrelated commit: %+v, before %+v", r, was)
	}
	if r := statusRole(st, "conf"); r == nil || r.Result == status.RoleUnchanged {
		t.Errorf("the ConfigMap's role was not updated: %+v", r)
	}

	b.run(t)
	keyB, maskB := b.key(t, cs), b.mask(t)
	if string(keyB.Data["key"]) == string(keyA.Data["key"]) || maskB == maskA {
		t.Errorf("two installs share a key or a mask (%s)", maskA)
	}
	if ra, rb := statusRole(readStatus(t, a.repo, "vault"), "creds"), statusRole(readStatus(t, b.repo, "vault"), "creds"); ra == nil || rb == nil || ra.RevisionName == rb.RevisionName {
		t.Errorf("two installs name the Secret's revision alike: %+v %+v", ra, rb)
	}

	sum := sha256.Sum256([]byte("vault/creds/password=" + maskedValue))
	unkeyed := hex.EncodeToString(sum[:12])
	for _, in := range []*maskInstall{a, b} {
		for _, bad := range []string{maskedValue, unkeyed, "masked:sha256:"} {
			if hits, err := in.repo.Grep("roleout/status", bad); err != nil || len(hits) > 0 {
				t.Errorf("%s: the status branch holds %q: %v %v", in.namespace, bad, hits, err)
			}
		}
		revs, err := cs.AppsV1().ControllerRevisions(in.namespace).List(ctx, metav1.ListOptions{})
		if err != nil || len(revs.Items) == 0 {
			t.Fatalf("%s: no role revisions in the cluster: %v", in.namespace, err)
		}
		for _, r := range revs.Items {
			if data := string(r.Data.Raw); strings.Contains(data, maskedValue) || strings.Contains(data, unkeyed) {
				t.Errorf("ControllerRevision %s/%s holds the value or its unkeyed digest", in.namespace, r.Name)
			}
		}
	}
	live, err := cs.CoreV1().Secrets("vault").Get(ctx, "creds", metav1.GetOptions{})
	if err != nil || string(live.Data["password"]) != maskedValue {
		t.Fatalf("the applied Secret: %v", err)
	}
	if h := live.Annotations["roleout.dev/applied-hash"]; len(h) != 20 {
		t.Errorf("the Secret carries no keyed applied hash: %q", h)
	}
}
