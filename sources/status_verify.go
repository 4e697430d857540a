package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// DefaultStatusSearchDepth bounds how many commits below a refused head
// a read of the status branch searches for one the agent signed.
const DefaultStatusSearchDepth = 100

// StatusRead is what a read of the status branch found.
type StatusRead struct {
	// Files are the files read, by slash-separated path.
	Files map[string][]byte
	// Head is the branch's head commit; "" when the branch does not
	// exist.
	Head string
	// Commit is the commit Files come from: Head, or, when Head is
	// refused, the newest of its first-parent ancestors that the status
	// signing key signed; "" when there is none (Files is then empty).
	Commit string
	// Refused says why Head is not trusted. It is nil when Head is signed
	// by the status signing key, and always nil without one: then nothing
	// is verified and Head is read as it is.
	Refused *VerificationError
}

// statusCheckout is a clone of the status branch whose work tree holds
// the trusted tree: the head's, or that of the newest ancestor signed by
// the status signing key, or nothing.
type statusCheckout struct {
	repo    *git.Repository
	fs      billy.Filesystem
	head    plumbing.Hash
	trusted plumbing.Hash // zero when no commit is trusted
	refused *VerificationError
	depth   int // how far below a refused head the search went
}

// checkout clones the status branch and, with a signing key, verifies
// its head. A head the key did not sign is refused: the work tree is
// reset to the newest first-parent ancestor the key signed (searching
// SearchDepth commits), or emptied when there is none, so that what was
// written without the key is never read. It returns nil when the branch
// does not exist.
func (b *StatusBranch) checkout(ctx context.Context) (*statusCheckout, error) {
	repo, fs, err := b.clone(ctx, 1)
	if err != nil || repo == nil {
		return nil, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	co := &statusCheckout{repo: repo, fs: fs, head: head.Hash(), trusted: head.Hash()}
	if b.opts.SigningKeyFile == "" {
		return co, nil
	}
	keys, err := statusKeys(b.opts.SigningKeyFile)
	if err != nil {
		return nil, err
	}
	if refused, err := verifyStatusCommit(repo, co.head, keys); err != nil || refused == nil {
		return co, err
	}
	// The head is refused: look further back, on a deeper clone (the
	// branch may have moved meanwhile; the search starts at its head).
	if repo, fs, err = b.clone(ctx, b.opts.SearchDepth+1); err != nil || repo == nil {
		return nil, err
	}
	if head, err = repo.Head(); err != nil {
		return nil, err
	}
	co = &statusCheckout{repo: repo, fs: fs, head: head.Hash(), depth: b.opts.SearchDepth}
	if co.trusted, co.refused, err = newestSigned(repo, co.head, b.opts.SearchDepth, keys); err != nil {
		return nil, err
	}
	if co.refused == nil {
		return co, nil
	}
	return co, co.resetToTrusted()
}

// newestSigned walks the first parents of head, at most depth commits
// below it, and returns the first commit keys signed (zero when none) and
// why head itself was refused (nil when head is the one).
func newestSigned(repo *git.Repository, head plumbing.Hash, depth int, keys trustedKeys) (plumbing.Hash, *VerificationError, error) {
	var headRefused *VerificationError
	at := head
	for i := 0; i <= depth; i++ {
		refused, err := verifyStatusCommit(repo, at, keys)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			break // the branch's first commit, or the clone's depth
		}
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if refused == nil {
			return at, headRefused, nil
		}
		if i == 0 {
			headRefused = refused
		}
		c, err := repo.CommitObject(at)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		at = c.ParentHashes[0]
	}
	return plumbing.ZeroHash, headRefused, nil
}

// verifyStatusCommit checks that keys signed commit hash: nil when they
// did, the refusal otherwise; err only when the commit cannot be read.
func verifyStatusCommit(repo *git.Repository, hash plumbing.Hash, keys trustedKeys) (*VerificationError, error) {
	c, err := repo.CommitObject(hash)
	if err != nil {
		return nil, err
	}
	payload, err := encodeWithoutSignature(c)
	if err != nil {
		return nil, err
	}
	err = verifyObject("commit "+hash.String()[:7], c.PGPSignature, payload, c.Committer.When, keys)
	var refused *VerificationError
	if errors.As(err, &refused) {
		return refused, nil
	}
	return nil, err
}

// resetToTrusted makes the work tree and index hold the trusted commit's
// tree, or nothing when no commit is trusted. The branch then points at
// the trusted commit (or still at the head); a commit made on it names
// the head as its parent (commitOptions).
func (co *statusCheckout) resetToTrusted() error {
	wt, err := co.repo.Worktree()
	if err != nil {
		return err
	}
	if !co.trusted.IsZero() {
		return wt.Reset(&git.ResetOptions{Commit: co.trusted, Mode: git.HardReset})
	}
	c, err := co.repo.CommitObject(co.head)
	if err != nil {
		return err
	}
	files, err := c.Files()
	if err != nil {
		return err
	}
	return files.ForEach(func(f *object.File) error {
		_, err := wt.Remove(f.Name)
		return err
	})
}

// read returns what the checkout read: its files under dir and whose
// commit they are.
func (co *statusCheckout) read(files map[string][]byte) StatusRead {
	r := StatusRead{Files: files, Head: co.head.String(), Refused: co.refused}
	if !co.trusted.IsZero() {
		r.Commit = co.trusted.String()
	}
	return r
}

// restoreCommit sets opts and returns msg for a commit on top of a
// refused head: the head stays in the history (nobody's push is lost, and
// no force-push is needed) and the new commit, signed, carries the
// trusted tree plus this write.
func (co *statusCheckout) restoreCommit(opts *git.CommitOptions, msg string) string {
	if co.refused == nil {
		return msg
	}
	opts.Parents = []plumbing.Hash{co.head}
	opts.AllowEmptyCommits = true
	signer := ""
	if co.refused.Signer != "" {
		signer = ", signed by " + co.refused.Signer
	}
	restored := fmt.Sprintf("none of the %d commits below it is, so the records start afresh", co.depth)
	if !co.trusted.IsZero() {
		restored = "this commit restores the records of " + co.trusted.String()[:7] + ", the newest commit it signed"
	}
	return fmt.Sprintf("%s\n\nThe status branch head %s is not signed by this agent's key (%s%s): %s.",
		msg, co.head.String()[:7], co.refused.Reason, signer, restored)
}
