package sources

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
)

// TestIncrementalCheckout checks out a commit after another: files whose
// blob and mode did not change are hard links to the previous snapshot,
// every other file is written afresh, and the result is the commit's
// tree.
func TestIncrementalCheckout(t *testing.T) {
	srv, repo := newFixture(t, testgit.Options{})
	mustCommit(t, repo, "main", "first", map[string]string{
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
