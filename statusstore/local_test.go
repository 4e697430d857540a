package statusstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

// appRecord returns a record of about 8 KiB that does not compress: the
// size of an app's status with a few revisions.
func appRecord(t *testing.T, app string) []byte {
	t.Helper()
	b := make([]byte, 4<<10)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return []byte(app + ": " + hex.EncodeToString(b) + "\n")
}

// TestStatusBranchCostsWhatChanged holds 300 apps' records on the branch
// (about 2.4 MiB) and has two writers, each with a local copy of its own
// (two replicas), change one app at a time: a write pushes only its own
// objects, a read after another writer's commit fetches only what that
// commit added, a read when nothing moved lists refs and fetches
// nothing, and writers racing each other land every record without a
// clone. A copy kept in the cache directory is read after a restart
// without a fetch.
func TestStatusBranchCostsWhatChanged(t *testing.T) {
	ctx := context.Background()
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "config", map[string]string{"apps/web/kustomization.yaml": "resources: []\n"})
	opts := Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com"}
	optsA, optsB := opts, opts
	optsA.CacheDir, optsB.CacheDir = t.TempDir(), t.TempDir()
	a, b := New(optsA), New(optsB)
	defer b.Close()

	const apps = 300
	all := map[string][]byte{}
	for i := range apps {
		all[fmt.Sprintf("app-%d/status.yaml", i)] = appRecord(t, fmt.Sprint(i))
	}
	if _, err := a.Commit(ctx, all, "roleout: every app"); err != nil {
		t.Fatal(err)
	}
	srv.ResetCounts()
	if _, err := b.ReadFile(ctx, "app-7/status.yaml"); err != nil {
		t.Fatal(err)
	}
	branchBytes := srv.Bytes("config", testgit.UploadPack)
	if branchBytes < apps*4<<10 {
		t.Fatalf("the first read fetched %d bytes, less than the branch holds: the fixture is wrong", branchBytes)
	}
	budget := max(int64(64<<10), branchBytes/20)

	srv.ResetCounts()
	changed := appRecord(t, "1")
	if _, err := a.Commit(ctx, map[string][]byte{"app-1/status.yaml": changed}, "roleout: app-1"); err != nil {
		t.Fatal(err)
	}
	if n, pushed := srv.Count("config", testgit.UploadPack), srv.Bytes("config", testgit.ReceivePack); n != 0 || pushed > budget {
		t.Errorf("a writer at the head changed one app with %d fetches and a %d-byte push, want none and at most %d (the branch is %d)", n, pushed, budget, branchBytes)
	}
	srv.ResetCounts()
	got, err := b.ReadFile(ctx, "app-1/status.yaml")
	if err != nil || string(got) != string(changed) {
		t.Fatalf("the other writer read app-1 as %.20q, %v", got, err)
	}
	if fetched := srv.Bytes("config", testgit.UploadPack); fetched > budget {
		t.Errorf("a read after one app's commit fetched %d bytes, want at most %d (the branch is %d)", fetched, budget, branchBytes)
	}
	srv.ResetCounts()
	if _, err := b.ReadFile(ctx, "app-1/status.yaml"); err != nil {
		t.Fatal(err)
	}
	if c := srv.Counts("config"); c[testgit.UploadPack] != 0 || c[testgit.RefsUpload] != 1 {
		t.Errorf("a read with nothing moved made %v, want one ref listing and no fetch", c)
	}

	// Two writers racing: each push rejected by the other's fetches what
	// moved and goes again, with no clone.
	srv.ResetCounts()
	const rounds = 10
	var wg sync.WaitGroup
	for w, br := range map[string]*Branch{"a": a, "b": b} {
		wg.Go(func() {
			for i := range rounds {
				name := fmt.Sprintf("app-%s%d/status.yaml", w, i)
				if _, err := br.Commit(ctx, map[string][]byte{name: []byte(name + "\n")}, "roleout: "+name); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, w := range []string{"a", "b"} {
		for i := range rounds {
			name := fmt.Sprintf("app-%s%d/status.yaml", w, i)
			if got, err := repo.Show("roleout/status", name); err != nil || got != name+"\n" {
				t.Errorf("%s lost: %q %v", name, got, err)
			}
		}
	}
	if fetched := srv.Bytes("config", testgit.UploadPack); fetched > branchBytes/2 {
		t.Errorf("%d racing commits fetched %d bytes in %d fetches, want far less than one clone (%d)", 2*rounds, fetched, srv.Count("config", testgit.UploadPack), branchBytes)
	}

	// A restart reads the copy it left in the cache directory.
	a.Close()
	srv.ResetCounts()
	again := New(optsA)
	defer again.Close()
	if got, err := again.ReadFile(ctx, "app-b9/status.yaml"); err != nil || string(got) != "app-b9/status.yaml\n" {
		t.Fatalf("read after a restart: %q, %v", got, err)
	}
	if fetched := srv.Bytes("config", testgit.UploadPack); fetched > budget {
		t.Errorf("a restarted writer fetched %d bytes, want only what moved (at most %d)", fetched, budget)
	}
}

// TestStatusBranchDamagedCopy truncates every pack of a local copy and
// plants a ref for a commit that is not there: the next read finds the
// copy damaged, fetches it anew and reads the branch's records.
func TestStatusBranchDamagedCopy(t *testing.T) {
	ctx := context.Background()
	b, _, _ := newStatusBranch(t)
	b.opts.CacheDir = t.TempDir()
	defer b.Close()
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n")}, "roleout: web"); err != nil {
		t.Fatal(err)
	}
	other := New(b.opts)
	other.opts.CacheDir = t.TempDir()
	defer other.Close()
	if _, err := other.ReadFile(ctx, "web/status.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Failed\n")}, "roleout: web again"); err != nil {
		t.Fatal(err)
	}
	packs, err := filepath.Glob(filepath.Join(other.opts.CacheDir, "status", "*", "objects", "pack", "*.pack"))
	if err != nil || len(packs) == 0 {
		t.Fatalf("no pack in the other copy: %v", err)
	}
	for _, p := range packs {
		if err := os.Truncate(p, 40); err != nil {
			t.Fatal(err)
		}
	}
	got, err := other.ReadFile(ctx, "web/status.yaml")
	if err != nil || string(got) != "phase: Failed\n" {
		t.Fatalf("read from a damaged copy: %q, %v; want the branch's record", got, err)
	}
}

// TestStatusBranchEmptyRef leaves a copy's ref empty, as go-git's ref
// write does when the process is killed between its truncate and its
// write: the next read after the branch moved fetches the copy anew, and
// the store's own ref writes leave no partial file behind.
func TestStatusBranchEmptyRef(t *testing.T) {
	ctx := context.Background()
	b, _, _ := newStatusBranch(t)
	defer b.Close()
	other := New(b.opts)
	other.opts.CacheDir = t.TempDir()
	defer other.Close()
	for i, phase := range []string{"Progressing", "Succeeded", "Failed"} {
		if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: " + phase + "\n")}, "roleout: web"); err != nil {
			t.Fatal(err)
		}
		got, err := other.ReadFile(ctx, "web/status.yaml")
		if err != nil || string(got) != "phase: "+phase+"\n" {
			t.Fatalf("read %d: %q, %v", i, got, err)
		}
		refs, err := filepath.Glob(filepath.Join(other.opts.CacheDir, "status", "*", "refs", "heads", "roleout", "*"))
		if err != nil || len(refs) != 1 {
			t.Fatalf("the copy holds refs %v (%v), want only the status branch's", refs, err)
		}
		if err := os.Truncate(refs[0], 0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClaimDirSkipsHeldCopies holds the lock of a copy's directory as
// another process would: the next claim takes the next directory.
func TestClaimDirSkipsHeldCopies(t *testing.T) {
	base := filepath.Join(t.TempDir(), "status", "key")
	first, lock := claimDir(base)
	if first != base || lock == nil {
		t.Fatalf("first claim = %q", first)
	}
	second, lock2 := claimDir(base)
	if second != base+".1" || lock2 == nil {
		t.Fatalf("claim while %s is held = %q, want %s.1", base, second, base)
	}
	lock.Close()
	third, lock3 := claimDir(base)
	if third != base || lock3 == nil {
		t.Errorf("claim after %s was released = %q", base, third)
	}
	lock2.Close()
	lock3.Close()
}
