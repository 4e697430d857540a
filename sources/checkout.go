package sources

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// checkout writes the tree of commit into dir, atomically: the files go
// to a temporary directory that is renamed into place when complete.
// A file whose blob and mode are the same as in prev (the snapshot
// checked out before, or a zero Snapshot) is a hard link to prev's copy,
// so a commit that changes one file of a large tree reads and writes
// one blob. Snapshots are read-only, which makes the sharing safe.
// Symlinks are written as symlinks; whether one may be followed is the
// renderer's decision.
func checkout(repo *git.Repository, commit plumbing.Hash, dir string, prev Snapshot) error {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return fmt.Errorf("read commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("read tree of %s: %w", commit, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".checkout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	w := treeWriter{repo: repo, root: tmp, prev: prev}
	if err := w.writeTree(tree, ""); err != nil {
		return fmt.Errorf("check out %s: %w", commit, err)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return err
		}
	}
	return nil
}

// treeWriter writes a tree's files under root.
type treeWriter struct {
	repo *git.Repository
	root string
	prev Snapshot
}

// writeTree writes tree t, at rel (slash-separated; "" for the root).
func (w *treeWriter) writeTree(t *object.Tree, rel string) error {
	for _, e := range t.Entries {
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, `/\`) {
			return fmt.Errorf("tree %s holds the unsafe name %q", rel, e.Name)
		}
		p := path.Join(rel, e.Name)
		switch e.Mode {
		case filemode.Dir:
			sub, err := w.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("read tree %s: %w", p, err)
			}
			if err := os.Mkdir(w.path(p), 0o755); err != nil {
				return err
			}
			if err := w.writeTree(sub, p); err != nil {
				return err
			}
		case filemode.Submodule:
			// A submodule's commit is not in this repository.
		default:
			if err := w.writeFile(p, e); err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
		}
	}
	return nil
}

func (w *treeWriter) path(rel string) string { return filepath.Join(w.root, filepath.FromSlash(rel)) }

// writeFile writes the blob of entry e at rel, or links the previous
// snapshot's copy when it has the same blob and mode.
func (w *treeWriter) writeFile(rel string, e object.TreeEntry) error {
	dst := w.path(rel)
	if src, ok := w.reusable(rel, e); ok && os.Link(src, dst) == nil {
		return nil
	}
	blob, err := w.repo.BlobObject(e.Hash)
	if err != nil {
		return err
	}
	r, err := blob.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if e.Mode == filemode.Symlink {
		target, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return os.Symlink(string(target), dst)
	}
	perm := os.FileMode(0o644)
	if e.Mode == filemode.Executable {
		perm = 0o755
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// reusable returns the previous snapshot's copy of rel when it holds the
// same blob as e with the same mode: a regular file, executable or not
// as e is.
func (w *treeWriter) reusable(rel string, e object.TreeEntry) (string, bool) {
	if w.prev.Dir == "" || e.Mode == filemode.Symlink {
		return "", false
	}
	if h, ok := w.prev.Index.Hash(rel); !ok || h != e.Hash.String() {
		return "", false
	}
	src := filepath.Join(w.prev.Dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return src, (fi.Mode().Perm()&0o111 != 0) == (e.Mode == filemode.Executable)
}
