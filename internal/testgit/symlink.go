package testgit

import (
	"os"
	"path/filepath"
)

// CommitSymlink commits, on top of branch, a symbolic link at p (relative
// to the repository root) pointing at target, and pushes the branch.
func (r *Repo) CommitSymlink(branch, msg, p, target string) (string, error) {
	return r.change(branch, msg, nil, func() error {
		full := filepath.Join(r.work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.RemoveAll(full); err != nil {
			return err
		}
		return os.Symlink(target, full)
	})
}
