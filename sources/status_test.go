package sources

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

func newStatusBranch(t *testing.T) (*StatusBranch, func(rev, path string) (string, error), func() []string) {
	t.Helper()
	srv, repo := newFixture(t, testgit.Options{})
	mustCommit(t, repo, "main", "config", map[string]string{"apps/web/kustomization.yaml": "resources: []\n"})
	b := NewStatusBranch(StatusOptions{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "roleout@example.com"})
	log := func() []string {
		l, err := repo.Log("roleout/status")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	return b, repo.Show, log
}

func TestStatusBranchCommitAndRead(t *testing.T) {
	b, show, log := newStatusBranch(t)
	ctx := context.Background()
	if _, err := b.ReadFile(ctx, "web/status.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read before the branch exists: %v, want ErrNotExist", err)
	}
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n")}, "roleout: web first"); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadFile(ctx, "web/status.yaml")
	if err != nil || string(got) != "phase: Succeeded\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n")}, "roleout: same"); !errors.Is(err, ErrNoChange) {
		t.Errorf("unchanged commit: %v, want ErrNoChange", err)
	}
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": nil, "web/history.yaml": []byte("- a\n")}, "roleout: second"); err != nil {
		t.Fatal(err)
	}
	if _, err := show("roleout/status", "web/status.yaml"); err == nil {
		t.Error("web/status.yaml should be deleted")
	}
	if _, err := show("roleout/status", "apps/web/kustomization.yaml"); err == nil {
		t.Error("the status branch must be an orphan, not a copy of main")
	}
	if got := log(); strings.Join(got, "|") != "roleout: second|roleout: web first" {
		t.Errorf("status log = %q", got)
	}
}

// TestStatusBranchConcurrentWriters has two writers commit at once; each
// non-fast-forward rejection is retried on the new head and no record is
// lost.
func TestStatusBranchConcurrentWriters(t *testing.T) {
	b, show, log := newStatusBranch(t)
	ctx := context.Background()
	const rounds = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	for _, w := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				name := fmt.Sprintf("%s/record-%d.yaml", w, i)
				if _, err := b.Commit(ctx, map[string][]byte{name: []byte(name + "\n")}, "roleout: "+name); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, w := range []string{"a", "b"} {
		for i := range rounds {
			name := fmt.Sprintf("%s/record-%d.yaml", w, i)
			if got, err := show("roleout/status", name); err != nil || got != name+"\n" {
				t.Errorf("%s lost: %q %v", name, got, err)
			}
		}
	}
	if n := len(log()); n != 2*rounds {
		t.Errorf("status commits = %d, want %d", n, 2*rounds)
	}
}

func TestStatusBranchReadFiles(t *testing.T) {
	b, _, _ := newStatusBranch(t)
	ctx := context.Background()
	if got, err := b.ReadFiles(ctx, "web"); err != nil || len(got) != 0 {
		t.Fatalf("before the branch exists: %v %v", got, err)
	}
	files := map[string][]byte{
		"web/status.yaml": []byte("a\n"), "web/revisions/db/web-db-1.yaml": []byte("b\n"), "other/status.yaml": []byte("c\n"),
	}
	if _, err := b.Commit(ctx, files, "roleout: files"); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadFiles(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["web/status.yaml"]) != "a\n" || string(got["web/revisions/db/web-db-1.yaml"]) != "b\n" {
		t.Errorf("ReadFiles(web) = %v", got)
	}
	if got, err := b.ReadFiles(ctx, "missing"); err != nil || len(got) != 0 {
		t.Errorf("missing dir: %v %v", got, err)
	}
}
