package sources

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// checkout writes the tree of commit into dir, atomically: the files go
// to a temporary directory that is renamed into place when complete.
// Symlinks are written as symlinks; whether one may be followed is the
// renderer's decision.
func checkout(repo *git.Repository, commit plumbing.Hash, dir string) error {
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
	err = tree.Files().ForEach(func(f *object.File) error {
		return writeFile(tmp, f)
	})
	if err != nil {
		return fmt.Errorf("check out %s: %w", commit, err)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return err
		}
	}
	return nil
}

func writeFile(root string, f *object.File) error {
	path := filepath.Join(root, filepath.FromSlash(f.Name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	r, err := f.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if f.Mode == filemode.Symlink {
		target, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return os.Symlink(string(target), path)
	}
	perm := os.FileMode(0o644)
	if f.Mode == filemode.Executable {
		perm = 0o755
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
