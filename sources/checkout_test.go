package sources

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
)

// TestIncrementalCheckout checks out a commit after another: files whose
// blob and mode did not change are hard links to the previous snapshot,
// every other file is written afresh, and the result is the commit's
// tree.
func TestIncrementalCheckout(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{
		"same.yaml": "same\n", "changed.yaml": "old\n", "gone.yaml": "gone\n", "run.sh": "echo\n", "dir/deep.yaml": "deep\n",
	})
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = repo.Edit("main", "second", func(wt string) error {
		for _, step := range []func() error{
			func() error { return os.WriteFile(filepath.Join(wt, "changed.yaml"), []byte("new\n"), 0o644) },
			func() error { return os.Remove(filepath.Join(wt, "gone.yaml")) },
			func() error { return os.Chmod(filepath.Join(wt, "run.sh"), 0o755) },
			func() error { return os.Symlink("same.yaml", filepath.Join(wt, "link")) },
		} {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	second, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		Content string
		Mode    string
		Linked  bool
	}
	got := map[string]file{}
	err = filepath.WalkDir(second.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(second.Dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		f := file{Mode: fi.Mode().String()}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			f.Content = "-> " + target
			got[rel] = f
			return err
		}
		data, err := os.ReadFile(p)
		f.Content = string(data)
		if old, err := os.Lstat(filepath.Join(first.Dir, rel)); err == nil {
			f.Linked = os.SameFile(old, fi)
		}
		got[rel] = f
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]file{
		"same.yaml":     {"same\n", "-rw-r--r--", true},
		"dir/deep.yaml": {"deep\n", "-rw-r--r--", true},
		"changed.yaml":  {"new\n", "-rw-r--r--", false},
		"run.sh":        {"echo\n", "-rwxr-xr-x", false},
		"link":          {"-> same.yaml", "Lrwxrwxrwx", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second snapshot (-want +got)\n%s", diff)
	}
	if data, err := os.ReadFile(filepath.Join(first.Dir, "changed.yaml")); err != nil || string(data) != "old\n" {
		t.Errorf("the first snapshot changed: changed.yaml = %q, %v", data, err)
	}
}

// TestCheckoutLimits: one blob listed under 16 paths is written once
// and linked to the others, within a bound it would pass 16 times over;
// a tree over the bytes or the entries of its limits is refused whole,
// with nothing checked out, naming the limit and the setting.
func TestCheckoutLimits(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	blob := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	files := map[string]string{}
	for i := range 16 {
		files[fmt.Sprintf("copies/%02d.yaml", i)] = blob
	}
	repo.MustCommit(t, "main", "one blob, 16 paths", files)
	fetch := func(lim CheckoutLimits) (Snapshot, error) {
		src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(), Checkout: lim})
		if err != nil {
			t.Fatal(err)
		}
		return src.Fetch(context.Background())
	}
	snap, err := fetch(CheckoutLimits{MaxBytes: 4 << 20})
	if err != nil {
		t.Fatalf("16 paths of one 1 MiB blob within 4 MiB: %v", err)
	}
	first, _ := os.Stat(filepath.Join(snap.Dir, "copies", "00.yaml"))
	last, _ := os.Stat(filepath.Join(snap.Dir, "copies", "15.yaml"))
	if !os.SameFile(first, last) {
		t.Error("the copies of one blob are not one file")
	}

	distinct := map[string]string{"a.yaml": blob, "b.yaml": strings.ToUpper(blob), "c.yaml": blob + "x"}
	repo.MustCommit(t, "main", "three blobs", distinct)
	var le *CheckoutLimitError
	if _, err := fetch(CheckoutLimits{MaxBytes: 2 << 20}); !errors.As(err, &le) || le.What != "bytes" ||
		!strings.Contains(err.Error(), "more than 2097152 bytes") || !strings.Contains(err.Error(), "source.maxCheckoutBytes") {
		t.Errorf("3 MiB of distinct blobs within 2 MiB: %v", err)
	}
	if _, err := fetch(CheckoutLimits{MaxEntries: 10}); !errors.As(err, &le) || le.What != "entries" || !strings.Contains(err.Error(), "source.maxCheckoutEntries") {
		t.Errorf("20 entries within 10: %v", err)
	}
}
