package sources

import (
	"fmt"
	"path"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TreeHashes maps every path of a commit (slash-separated, relative to
// the repository root; "" is the root) to its git object hash: the blob
// hash of a file, the tree hash of a directory. Renders are cached by the
// hashes of the paths they read.
type TreeHashes map[string]string

// Hash returns the object hash of path, and whether path exists.
func (t TreeHashes) Hash(p string) (string, bool) {
	h, ok := t[p]
	return h, ok
}

// treeHashes indexes the tree of commit.
func treeHashes(repo *git.Repository, commit plumbing.Hash) (TreeHashes, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	idx := TreeHashes{"": tree.Hash.String()}
	var walk func(prefix string, t *object.Tree) error
	walk = func(prefix string, t *object.Tree) error {
		for _, e := range t.Entries {
			p := path.Join(prefix, e.Name)
			idx[p] = e.Hash.String()
			if e.Mode != filemode.Dir {
				continue
			}
			sub, err := repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("read tree %s: %w", p, err)
			}
			if err := walk(p, sub); err != nil {
				return err
			}
		}
		return nil
	}
	return idx, walk("", tree)
}
