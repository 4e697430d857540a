package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// forgedStatusSetup serves app ns (three waves, prune on) from a source
// whose commits the release key signs and source.verify checks, rolls
// out v1, and creates a ConfigMap "victim" that carries the app's label
// but is not in git. With statusKey the agent signs (and verifies) its
// status branch.
func forgedStatusSetup(t *testing.T, ns string, statusKey *testgit.SigningKey) (kubernetes.Interface, *testgit.Repo, string, testgit.SigningKey) {
	t.Helper()
	testcluster.Require(t, cluster)
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	release := testgit.NewSSHKey(t, "release@example.com")
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	if _, err := repo.CommitSigned("main", "v1", threeWaves(ns, "v1"), release); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(keys, []byte(release.Principal+" "+release.Public+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, prune: true, timeout: 30s}\n")
	data, _ := os.ReadFile(config)
	cfg := strings.Replace(string(data), "branch: main}", "branch: main, verify: {mode: head, sshKeys: ["+keys+"]}}", 1)
	if statusKey != nil {
		cfg += "status: {signingKeyFile: " + statusKey.PrivateKeyFile + "}\n"
	}
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("v1: exit %d\n%s", code, logs)
	}
	victim := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "victim", Namespace: ns, Labels: map[string]string{object.AppLabel: ns}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), victim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cs, repo, config, release
}

// forgeStatus pushes, as someone with push rights to the repository, two
// commits onto app's status: an unsigned one adding the victim to the
// inventory, then one (signed by stranger when not nil) saying the app
// already Succeeded at source commit rev. It returns the forged head.
func forgeStatus(t *testing.T, repo *testgit.Repo, app, rev string, stranger *testgit.SigningKey) string {
	t.Helper()
	data, err := repo.Show("roleout/status", app+"/inventory.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var inv []model.InventoryEntry
	if err := yaml.UnmarshalStrict([]byte(data), &inv); err != nil {
		t.Fatal(err)
	}
	inv = append(inv, model.InventoryEntry{Ref: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: app, Name: "victim"}, Role: "a", UpgradeOrder: 1})
	forged, _ := yaml.Marshal(inv)
	if _, err := repo.Commit("roleout/status", "forged inventory", map[string]string{app + "/inventory.yaml": string(forged)}); err != nil {
		t.Fatal(err)
	}
	st := readStatus(t, repo, app)
	st.SourceRevision, st.Phase = "main@sha1:"+rev, status.PhaseSucceeded
	forged, _ = yaml.Marshal(st)
	files := map[string]string{app + "/status.yaml": string(forged)}
	var head string
	if stranger != nil {
		head, err = repo.CommitSigned("roleout/status", "forged status", files, *stranger)
	} else {
		head, err = repo.Commit("roleout/status", "forged status", files)
	}
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// deploymentImage returns the image of Deployment name in ns.
func deploymentImage(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// victimExists reports whether the victim ConfigMap is still in ns.
func victimExists(t *testing.T, cs kubernetes.Interface, ns string) bool {
	t.Helper()
	_, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "victim", metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// TestForgedStatusUnverified shows what a forged status branch does to
// an agent without status.signingKeyFile, as the threat the verified
// test guards against: a status saying Succeeded skips a signed source
// commit, and a forged inventory deletes an object with the next one.
func TestForgedStatusUnverified(t *testing.T) {
	t.Parallel()
	const ns = "forged-unverified"
	cs, repo, config, release := forgedStatusSetup(t, ns, nil)
	v2, err := repo.CommitSigned("main", "v2", threeWaves(ns, "v2"), release)
	if err != nil {
		t.Fatal(err)
	}
	forgeStatus(t, repo, ns, v2, nil)
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitOK || !strings.Contains(logs, "status branch trusted unverified") {
		t.Errorf("exit %d, want 0 and the warning that the status branch is trusted unverified:\n%s", code, logs)
	}
	if img := deploymentImage(t, cs, ns, "b"); !strings.HasSuffix(img, ":v1") {
		t.Errorf("Deployment b runs %s: the forged status did not skip v2 (the threat is gone; update this test)", img)
	}
	if _, err := repo.CommitSigned("main", "v3", threeWaves(ns, "v3"), release); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("v3: exit %d\n%s", code, logs)
	}
	if victimExists(t, cs, ns) {
		t.Error("the forged inventory pruned nothing without a signing key (the threat is gone; update this test)")
	}
}

// TestForgedStatusRefused has someone with push rights write the status
// branch of an agent that signs it: an unsigned commit adding an object
// to the inventory, then one signed by another key saying the next source
// commit already Succeeded. The agent refuses the head, says so in its
// log and the app's status, applies the signed source commit, prunes
// nothing, and commits its own records on top of the forged ones.
func TestForgedStatusRefused(t *testing.T) {
	t.Parallel()
	const ns = "forged-refused"
	statusKey := testgit.NewSSHKey(t, "roleout@example.com")
	stranger := testgit.NewSSHKey(t, "mallory@example.com")
	cs, repo, config, release := forgedStatusSetup(t, ns, &statusKey)
	trusted, err := repo.Rev("refs/heads/roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := repo.CommitSigned("main", "v2", threeWaves(ns, "v2"), release)
	if err != nil {
		t.Fatal(err)
	}
	forged := forgeStatus(t, repo, ns, v2, &stranger)
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	want := fmt.Sprintf("status branch head %s (signed by SHA256:", forged[:7])
	if !strings.Contains(logs, want) || !strings.Contains(logs, "records read from "+trusted[:7]) || strings.Contains(logs, "trusted unverified") {
		t.Errorf("log lacks %q and the trusted commit %s:\n%s", want, trusted[:7], logs)
	}
	if img := deploymentImage(t, cs, ns, "b"); !strings.HasSuffix(img, ":v2") {
		t.Errorf("Deployment b runs %s: the signed commit v2 was skipped because of a forged status", img)
	}
	if !victimExists(t, cs, ns) {
		t.Error("the forged inventory's object was pruned")
	}
	st := readStatus(t, repo, ns)
	if c := st.StatusBranch; st.Phase != status.PhaseSucceeded || st.SourceRevision != "main@sha1:"+v2 || c == nil ||
		c.Head != forged || c.ReadFrom != trusted || !strings.HasPrefix(c.Signer, "SHA256:") {
		t.Errorf("status %s at %s, statusBranch %+v: want Succeeded at v2 with the refused head %s recorded", st.Phase, st.SourceRevision, c, forged[:7])
	}
	head, err := repo.Rev("refs/heads/roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.VerifyCommit(head, statusKey); err != nil {
		t.Errorf("the status head after the run is not the agent's: %v", err)
	}
	if inv, _ := repo.Show("roleout/status", ns+"/inventory.yaml"); strings.Contains(inv, "victim") {
		t.Errorf("the forged inventory entry survived the agent's commit:\n%s", inv)
	}
	log, err := repo.Log("roleout/status")
	if err != nil || !strings.Contains(strings.Join(log, "|"), "forged status|forged inventory") {
		t.Errorf("status log %q (%v): the forged commits must stay in the history", log, err)
	}
}

// TestStatusAnchorRefusesAReplay: an agent that signs its status branch
// anchors the last head it wrote in its cluster (ConfigMap
// roleout-status-anchor). Someone with push rights merges an old signed
// status commit back on top (first parent first, no force-push): the
// agent refuses the branch, applies nothing of the records it would have
// replayed, writes nothing, and says how to recover.
func TestStatusAnchorRefusesAReplay(t *testing.T) {
	t.Parallel()
	const ns = "anchor-replay"
	statusKey := testgit.NewSSHKey(t, "roleout@example.com")
	cs, repo, config, release := forgedStatusSetup(t, ns, &statusKey)
	old, err := repo.Rev("refs/heads/roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CommitSigned("main", "v2", threeWaves(ns, "v2"), release); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("v2: exit %d\n%s", code, logs)
	}
	newer, err := repo.Rev("refs/heads/roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	anchor, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), control.StatusAnchorName, metav1.GetOptions{})
	found := false
	for _, v := range anchor.Data {
		found = found || v == newer
	}
	if err != nil || !found {
		t.Fatalf("the anchor ConfigMap: %v %v, want %s among its values", err, anchor.Data, newer[:7])
	}
	replay, err := repo.MergeCommit("roleout/status", old, newer, "replay v1's records")
	if err != nil {
		t.Fatal(err)
	}
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitError || !strings.Contains(logs, "the last head this agent wrote") {
		t.Errorf("a replayed status branch: exit %d, want %d naming the anchor:\n%s", code, exitError, logs)
	}
	if head, _ := repo.Rev("refs/heads/roleout/status"); head != replay {
		t.Errorf("the agent wrote on a replayed branch: head %s, want %s", head, replay[:7])
	}
	if img := deploymentImage(t, cs, ns, "b"); !strings.HasSuffix(img, ":v2") {
		t.Errorf("Deployment b runs %s after a replay of v1's records", img)
	}
}
