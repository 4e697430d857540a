package statusstore

import (
	"github.com/roleout/roleout/sources"

	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// reader returns the checkout's bounded reader: one budget for
// everything a call reads.
func (co *statusCheckout) reader() *treeReader {
	if co.tr == nil {
		co.tr = newTreeReader(co.store, co.lim)
	}
	return co.tr
}

// root returns the trusted commit's tree, zero when nothing is trusted.
func (co *statusCheckout) root() (plumbing.Hash, error) {
	if co.trusted.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := statusCommit(co.repo, co.trusted)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", co.trusted, err)
	}
	return c.TreeHash, nil
}

// files reads every file under dir of the trusted tree into out, but
// those under dir's folders named in skip.
func (co *statusCheckout) files(dir string, out map[string][]byte, skip ...string) error {
	root, err := co.root()
	if err != nil || root.IsZero() {
		return err
	}
	r := co.reader()
	t, err := r.subtree(root, dir)
	if err != nil || t == nil {
		return err
	}
	if len(skip) > 0 {
		t = withoutFolders(t, skip)
	}
	return r.files(t, strings.Join(splitPath(dir), "/"), out)
}

// withoutFolders returns t without its folders named in skip.
func withoutFolders(t *object.Tree, skip []string) *object.Tree {
	kept := &object.Tree{Hash: t.Hash}
	for _, e := range t.Entries {
		if e.Mode != filemode.Dir || !slices.Contains(skip, e.Name) {
			kept.Entries = append(kept.Entries, e)
		}
	}
	return kept
}

// file returns the trusted tree's file name, and false when it has none.
func (co *statusCheckout) file(name string) ([]byte, bool, error) {
	root, err := co.root()
	if err != nil || root.IsZero() {
		return nil, false, err
	}
	return co.reader().file(root, name)
}

// edit writes the trusted tree with files written (nil content deletes)
// and returns the hashes of the tree before and after; the empty tree's
// when nothing is trusted or nothing is left.
func (co *statusCheckout) edit(files map[string][]byte) (before, after plumbing.Hash, err error) {
	r := co.reader()
	empty, err := emptyTree(co.store)
	if err != nil {
		return
	}
	root, err := co.root()
	if err != nil {
		return
	}
	var base *object.Tree
	before = empty
	if !root.IsZero() {
		before = root
		if base, err = r.tree(root, "/"); err != nil {
			return
		}
	}
	e, err := newTreeEdit(files)
	if err != nil {
		return
	}
	if after, err = e.apply(r, base, ""); err == nil && after.IsZero() {
		after = empty
	}
	return
}

// commit stores a commit of tree on the head (none when the branch is
// new), signed as opts say, and points the branch at it.
func (co *statusCheckout) commit(tree plumbing.Hash, msg string, opts Options) (plumbing.Hash, error) {
	sig := object.Signature{Name: sanitizeIdent(opts.AuthorName), Email: sanitizeIdent(opts.AuthorEmail), When: time.Now()}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	if !co.head.IsZero() {
		c.ParentHashes = []plumbing.Hash{co.head}
	}
	if err := sources.SignCommit(opts.SigningKeyFile, c); err != nil {
		return plumbing.ZeroHash, err
	}
	o := co.store.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	hash, err := co.store.SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(opts.Branch), hash)
	return hash, co.store.SetReference(ref)
}

// sanitizeIdent drops what would break a commit's author line.
func sanitizeIdent(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '<' || r == '>' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}
