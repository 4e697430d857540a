package statusstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
)

// TestStatusBranchRefusesForgedHead has someone with push rights write
// the status branch on top of the agent's signed commit, unsigned and
// signed by another key (both SSH and PGP signing keys): the read refuses
// the head, names it and its signer, and returns the agent's own records;
// the agent's next commit goes on top of the forged ones with its own
// tree, and is trusted again.
func TestStatusBranchRefusesForgedHead(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name          string
		key, stranger testgit.SigningKey
		reason        string
	}{
		{"SSH", testgit.NewSSHKey(t, "roleout@example.com"), testgit.NewSSHKey(t, "mallory@example.com"), "the SSH key is not the one of status.signingKeyFile"},
		{"PGP", testgit.NewPGPKey(t, "roleout", "roleout@example.com"), testgit.NewPGPKey(t, "mallory", "mallory@example.com"), "the PGP signature is not from a trusted key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, repo := testgit.Fixture(t, testgit.Options{})
			b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com", SigningKeyFile: tc.key.PrivateKeyFile})
			signed, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n"), "web/inventory.yaml": []byte("real\n")}, "roleout: web")
			if err != nil {
				t.Fatal(err)
			}
			repo.MustCommit(t, "roleout/status", "forged, unsigned", map[string]string{"web/inventory.yaml": "forged\n"})
			forged, err := repo.CommitSigned("roleout/status", "forged, other key", map[string]string{"web/status.yaml": "phase: Forged\n", "web/extra.yaml": "x\n"}, tc.stranger)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.Read(ctx, "web")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"web/status.yaml": "phase: Succeeded\n", "web/inventory.yaml": "real\n"}
			if diff := cmp.Diff(want, asStrings(got.Files)); diff != "" {
				t.Errorf("files read past a forged head (-want +got)\n%s", diff)
			}
			if got.Head != forged || got.Commit != signed || got.Refused == nil ||
				!strings.Contains(got.Refused.Reason, tc.reason) || got.Refused.Signer == "" || got.Refused.Object != "commit "+forged[:7] {
				t.Fatalf("read %+v refused %+v, want head %s refused (%q, with a signer) and commit %s read", got, got.Refused, forged[:7], tc.reason, signed[:7])
			}
			restored, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Failed\n")}, "roleout: web again")
			if err != nil {
				t.Fatal(err)
			}
			if err := repo.VerifyCommit(restored, tc.key); err != nil {
				t.Errorf("the restoring commit is not signed: %v", err)
			}
			if parent, err := repo.Rev(restored + "^"); err != nil || parent != forged {
				t.Errorf("restoring commit's parent = %s (%v), want the forged head %s: no push is lost", parent, err, forged)
			}
			for name, content := range map[string]string{"web/status.yaml": "phase: Failed\n", "web/inventory.yaml": "real\n"} {
				if got, err := repo.Show("roleout/status", name); err != nil || got != content {
					t.Errorf("%s after the restoring commit = %q (%v), want %q", name, got, err, content)
				}
			}
			if _, err := repo.Show("roleout/status", "web/extra.yaml"); err == nil {
				t.Error("a forged file survived the restoring commit")
			}
			again, err := b.Read(ctx, "web")
			if err != nil || again.Refused != nil || again.Commit != restored {
				t.Errorf("read after the restoring commit: %+v %v, want its own head trusted", again, err)
			}
		})
	}
}

// TestStatusBranchNoSignedAncestor forges a head with no signed commit
// within SearchDepth below it: nothing is read, and the next commit
// starts the records afresh on top of it.
func TestStatusBranchNoSignedAncestor(t *testing.T) {
	ctx := context.Background()
	key := testgit.NewSSHKey(t, "roleout@example.com")
	srv, repo := testgit.Fixture(t, testgit.Options{})
	b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com",
		SigningKeyFile: key.PrivateKeyFile, SearchDepth: 2})
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n")}, "roleout: web"); err != nil {
		t.Fatal(err)
	}
	var head string
	for _, n := range []string{"1", "2", "3"} {
		head = repo.MustCommit(t, "roleout/status", "forged "+n, map[string]string{"web/inventory.yaml": "forged " + n + "\n"})
	}
	got, err := b.Read(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 0 || got.Commit != "" || got.Head != head || got.Refused == nil || got.Refused.Reason != "it is not signed" {
		t.Fatalf("read %+v refused %+v, want nothing read and the unsigned head refused", got, got.Refused)
	}
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Failed\n")}, "roleout: web afresh"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Show("roleout/status", "web/inventory.yaml"); err == nil {
		t.Error("the forged inventory survived the commit that starts afresh")
	}
	log, err := repo.Log("roleout/status")
	if err != nil || len(log) != 5 || !strings.HasPrefix(log[0], "roleout: web afresh") {
		t.Errorf("status log = %q (%v), want the new commit on top of the forged ones", log, err)
	}
}

// TestStatusBranchUnverified keeps today's behaviour without a signing
// key: the head is read as it is, whoever wrote it.
func TestStatusBranchUnverified(t *testing.T) {
	ctx := context.Background()
	srv, repo := testgit.Fixture(t, testgit.Options{})
	b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com"})
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n")}, "roleout: web"); err != nil {
		t.Fatal(err)
	}
	head := repo.MustCommit(t, "roleout/status", "someone else", map[string]string{"web/status.yaml": "phase: Other\n"})
	got, err := b.Read(ctx, "web")
	if err != nil || got.Refused != nil || got.Commit != head || string(got.Files["web/status.yaml"]) != "phase: Other\n" {
		t.Errorf("read %+v %v, want the head read as it is", got, err)
	}
}

func asStrings(files map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = string(v)
	}
	return out
}

// memAnchor is a StatusAnchor in memory.
type memAnchor struct{ commit string }

func (a *memAnchor) Get(context.Context) (string, error)   { return a.commit, nil }
func (a *memAnchor) Set(_ context.Context, c string) error { a.commit = c; return nil }

// TestStatusBranchAnchor has someone with push rights steer a signed
// status branch whose last head is anchored: a merge commit whose first
// parent is an old signed commit (a replay without a force-push), and
// more unsigned commits than the search depth (which would leave no
// signed commit to read, and the agent signing a head of one app's
// files). Both are refused, to read and to write, and the branch is not
// rewritten; one unsigned commit on top is read past as before, and the
// agent's next commit moves the anchor.
func TestStatusBranchAnchor(t *testing.T) {
	ctx := context.Background()
	srv, repo := testgit.Fixture(t, testgit.Options{})
	key := testgit.NewSSHKey(t, "roleout@example.com")
	anchor := &memAnchor{}
	b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com",
		SigningKeyFile: key.PrivateKeyFile, SearchDepth: 3, Anchor: anchor})
	old, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("v1\n"), "shop/status.yaml": []byte("v1\n")}, "roleout: v1")
	if err != nil {
		t.Fatal(err)
	}
	newer, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("v2\n")}, "roleout: v2")
	if err != nil || anchor.commit != newer {
		t.Fatalf("commit: %v; anchor %s, want %s", err, anchor.commit, newer)
	}
	refused := func(t *testing.T, what string) {
		t.Helper()
		head, _ := repo.Rev("refs/heads/roleout/status")
		var ae *AnchorError
		if _, err := b.Read(ctx, "web"); !errors.As(err, &ae) || !strings.Contains(err.Error(), "the last head this agent wrote") {
			t.Errorf("%s: read %v, want an AnchorError", what, err)
		}
		if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("v3\n")}, "roleout: v3"); !errors.As(err, &ae) {
			t.Errorf("%s: commit %v, want an AnchorError", what, err)
		}
		if after, _ := repo.Rev("refs/heads/roleout/status"); after != head {
			t.Errorf("%s: the branch moved to %s", what, after)
		}
	}

	if _, err := repo.MergeCommit("roleout/status", old, newer, "replay v1"); err != nil {
		t.Fatal(err)
	}
	refused(t, "a merge replaying v1")

	if err := repo.SetRef("refs/heads/roleout/status", newer); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Import("roleout/status", 4, func(i int) map[string]string {
		return map[string]string{"web/status.yaml": fmt.Sprintf("forged %d\n", i)}
	}); err != nil {
		t.Fatal(err)
	}
	refused(t, "four unsigned commits past a search depth of three")

	if err := repo.SetRef("refs/heads/roleout/status", newer); err != nil {
		t.Fatal(err)
	}
	repo.MustCommit(t, "roleout/status", "one unsigned", map[string]string{"web/status.yaml": "forged\n"})
	got, err := b.Read(ctx, "")
	if err != nil || got.Commit != newer || string(got.Files["shop/status.yaml"]) != "v1\n" || got.Refused == nil {
		t.Fatalf("one unsigned commit on the anchor: %v, read %s (refused %v), want the records of %s", err, got.Commit, got.Refused, newer[:7])
	}
	restored, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("v3\n")}, "roleout: v3")
	if err != nil || anchor.commit != restored {
		t.Errorf("commit on top: %v; anchor %s, want %s", err, anchor.commit, restored)
	}
}
