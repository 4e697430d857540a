package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestSignedCommitsOnly runs the agent with source.verify against the
// real git server: a commit signed with a trusted key (by the git
// program) rolls out; an unsigned commit and one signed with another key
// are refused, apply nothing, and the status names the commit and the
// reason; the next trusted commit rolls out again.
func TestSignedCommitsOnly(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "signed"
	trusted := testgit.NewSSHKey(t, "release@example.com")
	stranger := testgit.NewSSHKey(t, "stranger@example.com")
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "signed")
	files := threeWaves(ns, "v1")
	if _, err := repo.CommitSigned("main", "v1", files, trusted); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(keys, []byte(trusted.Principal+" "+trusted.Public+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: signed, path: apps/three}\n")
	data, _ := os.ReadFile(config)
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "branch: main}", "branch: main, verify: {mode: head, sshKeys: ["+keys+"]}}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	image := func() string {
		t.Helper()
		d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "b", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d.Spec.Template.Spec.Containers[0].Image
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("a trusted commit: exit %d\n%s", code, logs)
	}
	for _, tc := range []struct {
		name   string
		commit func() (string, error)
		reason string
	}{
		{"unsigned", func() (string, error) { return repo.Commit("main", "v2", threeWaves(ns, "v2")) }, "it is not signed"},
		{"signed by another key", func() (string, error) { return repo.CommitSigned("main", "v2", threeWaves(ns, "v2"), stranger) },
			"the SSH key is not one of source.verify.sshKeys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sha, err := tc.commit()
			if err != nil {
				t.Fatal(err)
			}
			code, _, logs := cli("run", "--once", "--config", config)
			if code != exitError || !strings.Contains(logs, "commit main@sha1:"+sha[:7]) || !strings.Contains(logs, tc.reason) {
				t.Errorf("exit %d, want 2 naming commit %s and %q:\n%s", code, sha[:7], tc.reason, logs)
			}
			if img := image(); !strings.HasSuffix(img, ":v1") {
				t.Errorf("Deployment b runs %s: the refused commit was applied", img)
			}
			if st := readStatus(t, repo, "signed"); st.Phase != status.PhaseFailed || !strings.Contains(st.Message, tc.reason) {
				t.Errorf("status %s %q, want Failed with the reason", st.Phase, st.Message)
			}
			// Previewed, never applied.
			md, err := repo.Show("roleout/status", "signed/previews/heads-main.md")
			if err != nil || !strings.Contains(md, "**Not applied:**") || !strings.Contains(md, tc.reason) || !strings.Contains(md, "registry.example/b:v2") {
				t.Errorf("preview of the refused commit: %v\n%s", err, md)
			}
		})
	}
	if _, err := repo.CommitSigned("main", "v3", threeWaves(ns, "v3"), trusted); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("the next trusted commit: exit %d\n%s", code, logs)
	}
	checkConverged(t, repo, "signed", ns, "v3")
	if _, err := repo.Show("roleout/status", "signed/previews/heads-main.md"); err == nil {
		t.Error("the preview of the refused commit is still there after a trusted one rolled out")
	}
}
