package statusstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
)

func newStatusBranch(t *testing.T) (*Branch, func(rev, path string) (string, error), func() []string) {
	t.Helper()
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "config", map[string]string{"apps/web/kustomization.yaml": "resources: []\n"})
	b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "roleout@example.com"})
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

// unionLines is a Merge hook for files of one record per line: the
// union of both sides' lines, sorted.
func unionLines(_ string, remote, ours []byte) ([]byte, error) {
	set := map[string]bool{}
	for _, l := range strings.Split(string(remote)+string(ours), "\n") {
		if l != "" {
			set[l] = true
		}
	}
	lines := make([]string, 0, len(set))
	for l := range set {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// TestStatusBranchConcurrentWriters has two writers (two processes: a
// Branch each) commit at once, 50 rounds each: each writes a file of
// its own and appends a record to one shared history file. Each
// non-fast-forward rejection is retried on the new head, the Merge hook
// keeps the other writer's records, and no record is lost.
func TestStatusBranchConcurrentWriters(t *testing.T) {
	b, show, log := newStatusBranch(t)
	b.opts.Merge = unionLines
	other := New(b.opts)
	ctx := context.Background()
	const rounds = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	for _, w := range []string{"a", "b"} {
		b := b
		if w == "b" {
			b = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var history []byte // this writer's view: its own records
			for i := range rounds {
				name := fmt.Sprintf("%s/record-%d.yaml", w, i)
				history = append(history, fmt.Sprintf("- %s-%02d\n", w, i)...)
				files := map[string][]byte{name: []byte(name + "\n"), "shared/history.yaml": history}
				if _, err := b.Commit(ctx, files, "roleout: "+name); err != nil {
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
	var want []string
	for _, w := range []string{"a", "b"} {
		for i := range rounds {
			name := fmt.Sprintf("%s/record-%d.yaml", w, i)
			if got, err := show("roleout/status", name); err != nil || got != name+"\n" {
				t.Errorf("%s lost: %q %v", name, got, err)
			}
			want = append(want, fmt.Sprintf("- %s-%02d", w, i))
		}
	}
	shared, err := show("roleout/status", "shared/history.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(shared), "\n")); diff != "" {
		t.Errorf("shared history records (-want +got)\n%s", diff)
	}
	if n := len(log()); n != 2*rounds {
		t.Errorf("status commits = %d, want %d", n, 2*rounds)
	}
}

// TestStatusBranchGroupCommit has 20 calls of one process commit at once,
// each a file of its own, and one more that changes nothing: every file
// lands, in fewer commits than calls (they were committed together), and
// the call that changed nothing still gets ErrNoChange.
func TestStatusBranchGroupCommit(t *testing.T) {
	b, show, log := newStatusBranch(t)
	ctx := context.Background()
	if _, err := b.Commit(ctx, map[string][]byte{"same/status.yaml": []byte("x\n")}, "roleout: first"); err != nil {
		t.Fatal(err)
	}
	const calls = 20
	var wg sync.WaitGroup
	errs := make([]error, calls+1)
	start := make(chan struct{})
	for i := range calls + 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			files := map[string][]byte{fmt.Sprintf("app-%d/status.yaml", i): []byte(fmt.Sprintf("app %d\n", i))}
			if i == calls {
				files = map[string][]byte{"same/status.yaml": []byte("x\n")}
			}
			_, errs[i] = b.Commit(ctx, files, fmt.Sprintf("roleout: app-%d", i))
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs[:calls] {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
		if got, err := show("roleout/status", fmt.Sprintf("app-%d/status.yaml", i)); err != nil || got != fmt.Sprintf("app %d\n", i) {
			t.Errorf("app-%d lost: %q %v", i, got, err)
		}
	}
	if !errors.Is(errs[calls], ErrNoChange) {
		t.Errorf("the call that changed nothing: %v, want ErrNoChange", errs[calls])
	}
	if n := len(log()) - 1; n >= calls {
		t.Errorf("%d calls made %d commits: none was committed with another", calls, n)
	} else {
		t.Logf("%d calls made %d commits", calls, n)
	}
}

// TestStatusBranchMergeHook checks what the Merge hook is given: only
// written files that exist on the remote head; and that its error stops
// the commit without a retry.
func TestStatusBranchMergeHook(t *testing.T) {
	b, show, _ := newStatusBranch(t)
	ctx := context.Background()
	if _, err := b.Commit(ctx, map[string][]byte{"web/history.yaml": []byte("- one\n"), "web/gone.yaml": []byte("x\n")}, "roleout: first"); err != nil {
		t.Fatal(err)
	}
	var calls []string
	b.opts.Merge = func(path string, remote, ours []byte) ([]byte, error) {
		calls = append(calls, fmt.Sprintf("%s: %q + %q", path, remote, ours))
		return unionLines(path, remote, ours)
	}
	files := map[string][]byte{"web/history.yaml": []byte("- two\n"), "web/new.yaml": []byte("n\n"), "web/gone.yaml": nil}
	if _, err := b.Commit(ctx, files, "roleout: second"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`web/history.yaml: "- one\n" + "- two\n"`}, calls); diff != "" {
		t.Errorf("Merge calls (-want +got)\n%s", diff)
	}
	if got, _ := show("roleout/status", "web/history.yaml"); got != "- one\n- two\n" {
		t.Errorf("merged history.yaml = %q", got)
	}
	calls = nil
	b.opts.Merge = func(path string, remote, ours []byte) ([]byte, error) {
		calls = append(calls, path)
		return nil, errors.New("not a history")
	}
	_, err := b.Commit(ctx, map[string][]byte{"web/history.yaml": []byte("- three\n")}, "roleout: third")
	if err == nil || !strings.Contains(err.Error(), "merge web/history.yaml with the status branch's version: not a history") || len(calls) != 1 {
		t.Errorf("a failing merge: %v after %d calls, want one call and its error", err, len(calls))
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
	each, err := b.ReadEach(ctx, []string{"web", "other", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"web", "other", "missing"} {
		one, err := b.Read(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(one, each[dir]); diff != "" {
			t.Errorf("ReadEach's %s differs from Read's (-Read +ReadEach):\n%s", dir, diff)
		}
	}
}

// TestStatusBranchReadSkips: a read that skips a folder of dir leaves out
// every file under it (and only those), and a folder of that name
// deeper down is read.
func TestStatusBranchReadSkips(t *testing.T) {
	b, _, _ := newStatusBranch(t)
	ctx := context.Background()
	files := map[string][]byte{
		"web/status.yaml":                   []byte("phase: Succeeded\n"),
		"web/previews/pull-1-head.json":     []byte("{}\n"),
		"web/previews/deep/x.md":            []byte("x\n"),
		"web/revisions/first/previews.yaml": []byte("r\n"),
		"web/revisions/previews/r.yaml":     []byte("r\n"),
		"webshop/previews/pull-2-head.json": []byte("{}\n"),
	}
	if _, err := b.Commit(ctx, files, "roleout: web"); err != nil {
		t.Fatal(err)
	}
	read, err := b.Read(ctx, "web", "previews")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for name := range read.Files {
		got = append(got, name)
	}
	sort.Strings(got)
	want := []string{"web/revisions/first/previews.yaml", "web/revisions/previews/r.yaml", "web/status.yaml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read of web skipping previews (-want +got):\n%s", diff)
	}
	all, err := b.Read(ctx, "web")
	if err != nil || len(all.Files) != 5 {
		t.Errorf("read of web without skip: %d files, %v; want 5", len(all.Files), err)
	}
}
