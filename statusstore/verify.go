package statusstore

import (
	"github.com/roleout/roleout/sources"

	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/roleout/roleout/status"
)

// DefaultSearchDepth bounds how many commits below a refused head
// a read of the status branch searches for one the agent signed.
const DefaultSearchDepth = 100

// statusCheckout is a view of the status branch: its head, the commit
// whose tree is trusted (the head's, or that of the newest ancestor
// signed by the status signing key, or none), and the repository that
// holds them: the local copy, held until close, or a deeper temporary
// clone a refused head needed.
type statusCheckout struct {
	repo    *git.Repository
	store   *statusStore
	head    plumbing.Hash
	trusted plumbing.Hash // zero when no commit is trusted
	refused *sources.VerificationError
	depth   int // how far below a refused head the search went
	lim     sources.CheckoutLimits
	tr      *treeReader
	// local is the local copy the view holds (its mu locked) until
	// close; temp says store is a temporary clone close removes.
	local *localCopy
	temp  bool
}

// close releases the view.
func (co *statusCheckout) close() {
	if co == nil {
		return
	}
	if co.temp {
		co.store.remove()
	}
	if co.local != nil {
		co.local.mu.Unlock()
	}
}

// checkout brings the local copy up to the branch's head and, with a
// signing key, verifies the head. A head the key did not sign is refused:
// the trusted commit is then the newest first-parent ancestor the key
// signed (searching SearchDepth commits), or none, so that what was
// written without the key is never read. It returns nil when the branch
// does not exist; the caller closes what it returns. A local copy found
// damaged is fetched anew, once.
func (b *Branch) checkout(ctx context.Context) (*statusCheckout, error) {
	since := time.Now()
	l, err := b.copy()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	co, err := b.checkoutLocked(ctx, l, since)
	if damaged(err) {
		l.reset()
		co, err = b.checkoutLocked(ctx, l, time.Now())
	}
	if err != nil || co == nil {
		l.mu.Unlock()
		return nil, err
	}
	return co, nil
}

// checkoutLocked is checkout with l.mu held.
func (b *Branch) checkoutLocked(ctx context.Context, l *localCopy, since time.Time) (*statusCheckout, error) {
	head, err := l.sync(ctx, b, since)
	if err != nil || head.IsZero() {
		return nil, err
	}
	co := &statusCheckout{repo: l.repo, store: l.store, head: head, trusted: head, lim: b.opts.Limits, local: l}
	if err := b.verify(ctx, co); err != nil {
		if co.temp {
			co.store.remove()
		}
		return nil, err
	}
	return co, nil
}

// verify checks co's head as checkout says, and on a refused head moves
// co to a deeper temporary clone and its trusted commit to the newest
// signed one below the head.
func (b *Branch) verify(ctx context.Context, co *statusCheckout) error {
	if b.opts.SigningKeyFile == "" {
		return nil
	}
	keys, err := sources.LoadStatusKeys(b.opts.SigningKeyFile)
	if err != nil {
		return err
	}
	refused, err := verifyStatusCommit(co.repo, co.head, keys)
	if err != nil {
		return err
	}
	if refused == nil {
		return b.anchored(ctx, co)
	}
	// The head is refused: look further back, on a deeper clone (the
	// branch may have moved meanwhile; the search starts at its head).
	repo, store, err := b.clone(ctx, b.opts.SearchDepth+1)
	if err != nil {
		return err
	}
	if repo == nil {
		return errors.New("the status branch was deleted while it was read")
	}
	co.repo, co.store, co.temp = repo, store, true
	head, err := repo.Head()
	if err != nil {
		return err
	}
	co.head, co.depth = head.Hash(), b.opts.SearchDepth
	if co.trusted, co.refused, err = newestSigned(repo, co.head, b.opts.SearchDepth, keys); err != nil {
		return err
	}
	return b.checkAnchor(ctx, co)
}

// newestSigned walks the first parents of head, at most depth commits
// below it, and returns the first commit keys signed (zero when none) and
// why head itself was refused (nil when head is the one).
func newestSigned(repo *git.Repository, head plumbing.Hash, depth int, keys *sources.StatusKeys) (plumbing.Hash, *sources.VerificationError, error) {
	var headRefused *sources.VerificationError
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
		c, err := statusCommit(repo, at)
		var large *largeCommitError
		if errors.As(err, &large) {
			break // its parents cannot be known without inflating it
		}
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
func verifyStatusCommit(repo *git.Repository, hash plumbing.Hash, keys *sources.StatusKeys) (*sources.VerificationError, error) {
	c, err := statusCommit(repo, hash)
	var large *largeCommitError
	if errors.As(err, &large) {
		return &sources.VerificationError{Object: "commit " + hash.String()[:7], Reason: large.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	return keys.VerifyCommit("commit "+hash.String()[:7], c)
}

// read returns what the checkout read: its files under dir and whose
// commit they are.
func (co *statusCheckout) read(files map[string][]byte) status.Read {
	r := status.Read{Files: files, Head: co.head.String()}
	if co.refused != nil {
		r.Refused = &status.Refusal{Object: co.refused.Object, Signer: co.refused.Signer, Reason: co.refused.Reason}
	}
	if !co.trusted.IsZero() {
		r.Commit = co.trusted.String()
	}
	return r
}

// restoreMessage returns msg for a commit on top of a refused head: the
// head stays in the history (nobody's push is lost, and no force-push is
// needed) and the new commit, signed, carries the trusted tree plus this
// write; the message says so.
func (co *statusCheckout) restoreMessage(msg string) string {
	if co.refused == nil {
		return msg
	}
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

// StatusAnchor keeps the last status head the agent wrote where only the
// agent writes. Get returns "" when there is none yet.
type StatusAnchor interface {
	Get(ctx context.Context) (string, error)
	Set(ctx context.Context, commit string) error
}

// AnchorError refuses a status branch whose trusted commit does not
// descend from the anchor: someone rewrote or replayed the branch.
type AnchorError struct {
	Branch, Anchor, Commit string
	Depth                  int
}

func (e *AnchorError) Error() string {
	found := "no commit this agent signed"
	if e.Commit != "" {
		found = "commit " + e.Commit[:7]
	}
	return fmt.Sprintf("status branch %s refused: it does not hold %s, the last head this agent wrote, within %d commits below %s; "+
		"someone rewrote it or replayed old records. Nothing is read or written until the branch descends from %s again "+
		"(push %s back, or delete the anchor ConfigMap to accept the branch as it is)", e.Branch, e.Anchor[:7], e.Depth, found, e.Anchor[:7], e.Anchor[:7])
}

// anchored checks a checkout whose head is signed against the anchor: the
// head is the anchor, or a deeper clone finds the anchor below it.
func (b *Branch) anchored(ctx context.Context, co *statusCheckout) error {
	anchor, err := b.anchor(ctx)
	if err != nil || anchor == "" || anchor == co.trusted.String() {
		return err
	}
	// The local copy holds the commits fetched since it was made: the
	// anchor is usually among them.
	if descends(co.repo, co.trusted, plumbing.NewHash(anchor), b.opts.SearchDepth) {
		return nil
	}
	repo, store, err := b.clone(ctx, b.opts.SearchDepth+1)
	if err != nil || repo == nil {
		return err
	}
	defer store.remove()
	return b.checkAnchor(ctx, &statusCheckout{repo: repo, store: store, head: co.head, trusted: co.trusted, depth: b.opts.SearchDepth})
}

// anchor returns the anchor, "" when none is kept.
func (b *Branch) anchor(ctx context.Context) (string, error) {
	if b.opts.Anchor == nil || b.opts.SigningKeyFile == "" {
		return "", nil
	}
	a, err := b.opts.Anchor.Get(ctx)
	if err != nil {
		return "", fmt.Errorf("read the status anchor: %w", err)
	}
	return a, nil
}

// checkAnchor refuses co (AnchorError) unless its trusted commit is the
// anchor or has it among its ancestors within SearchDepth commits.
func (b *Branch) checkAnchor(ctx context.Context, co *statusCheckout) error {
	anchor, err := b.anchor(ctx)
	if err != nil || anchor == "" {
		return err
	}
	refusal := &AnchorError{Branch: b.opts.Branch, Anchor: anchor, Depth: b.opts.SearchDepth}
	if co.trusted.IsZero() {
		return refusal
	}
	refusal.Commit = co.trusted.String()
	if !descends(co.repo, co.trusted, plumbing.NewHash(anchor), b.opts.SearchDepth) {
		return refusal
	}
	return nil
}

// descends reports whether ancestor is from or one of its ancestors,
// searching every parent (not only the first) at most depth commits down.
func descends(repo *git.Repository, from, ancestor plumbing.Hash, depth int) bool {
	level := []plumbing.Hash{from}
	seen := map[plumbing.Hash]bool{}
	for d := 0; d <= depth && len(level) > 0; d++ {
		var next []plumbing.Hash
		for _, h := range level {
			if h == ancestor {
				return true
			}
			if seen[h] {
				continue
			}
			seen[h] = true
			if c, err := statusCommit(repo, h); err == nil {
				next = append(next, c.ParentHashes...)
			}
		}
		level = next
	}
	return false
}

// maxStatusCommitBytes bounds a commit object of the status branch: the
// agent writes short messages, and a larger commit is never inflated.
const maxStatusCommitBytes = 1 << 20

// largeCommitError is a commit object over maxStatusCommitBytes.
type largeCommitError struct{ size int64 }

func (e *largeCommitError) Error() string {
	return fmt.Sprintf("the commit object is %d bytes, more than the %d a status commit may be", e.size, maxStatusCommitBytes)
}

// statusCommit returns commit h of a status branch clone once its size,
// read from its header, is within maxStatusCommitBytes.
func statusCommit(repo *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	if s, ok := repo.Storer.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}); ok {
		size, err := s.EncodedObjectSize(h)
		if err != nil {
			return nil, err
		}
		if size > maxStatusCommitBytes {
			return nil, &largeCommitError{size: size}
		}
	}
	return repo.CommitObject(h)
}

// Head returns the commit the status branch's head points at, from one
// ref listing (no objects): "" when the branch does not exist. A reader
// that polls (the web view) reads again only when it moved.
func (b *Branch) Head(ctx context.Context) (string, error) {
	h, err := b.remoteHead(ctx)
	if err != nil || h.IsZero() {
		return "", err
	}
	return h.String(), nil
}

// remoteHead lists the remote's refs (one request, no objects) and
// returns the branch's head: zero when the branch does not exist.
func (b *Branch) remoteHead(ctx context.Context) (plumbing.Hash, error) {
	auth, err := sources.Transport(b.opts.URL, b.opts.Auth)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{b.opts.URL}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return plumbing.ZeroHash, nil
		}
		return plumbing.ZeroHash, b.explain(err)
	}
	want := plumbing.NewBranchReferenceName(b.opts.Branch)
	for _, r := range refs {
		if r.Name() == want && r.Type() == plumbing.HashReference {
			return r.Hash(), nil
		}
	}
	return plumbing.ZeroHash, nil
}
