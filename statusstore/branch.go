package statusstore

import (
	"github.com/roleout/roleout/sources"

	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/roleout/roleout/internal/fence"
	"github.com/roleout/roleout/status"
)

// ErrNoChange is returned by Branch.Commit when the changes leave
// the branch as it is: no commit is made.
var ErrNoChange = errors.New("status unchanged: nothing to commit")

// Options configures a Branch.
type Options struct {
	URL    string
	Auth   sources.Credentials
	Branch string
	// AuthorName and AuthorEmail sign the status commits as author and
	// committer.
	AuthorName, AuthorEmail string
	// MaxAttempts bounds the retries of a push rejected as
	// non-fast-forward. Default DefaultAttempts.
	MaxAttempts int
	// SigningKeyFile, when set, signs every status commit: an armored PGP
	// secret key or an OpenSSH private key, without a passphrase. Reads
	// then trust only commits it signed (see Read).
	SigningKeyFile string
	// SearchDepth bounds how many commits below a refused head a read
	// searches for one SigningKeyFile signed. Default
	// DefaultSearchDepth.
	SearchDepth int
	// Anchor, when set with SigningKeyFile, keeps the last head this
	// agent wrote where only the agent writes (its cluster): a read
	// refuses a trusted commit that does not descend from it, so neither
	// unsigned commits pushed past SearchDepth nor a merge that replays
	// an old signed commit can wipe or roll back records.
	Anchor StatusAnchor
	// Merge, when set, combines a file another writer changed with this
	// writer's version of it: on every attempt of Commit, each file
	// written (content not nil) that exists on the remote head is
	// replaced by Merge(path, remote, ours). It lets two writers append
	// to one file without losing each other's records. Nil keeps ours.
	Merge func(path string, remote, ours []byte) ([]byte, error)
	// Limits bound what one read or write takes from the branch: the
	// objects fetched, and the files and bytes read (LimitError).
	// Zero takes a checkout's defaults.
	Limits sources.CheckoutLimits
	// CacheDir holds the local copy of the branch, kept between calls
	// (local.go); "" keeps it in a temporary directory removed by
	// Close.
	CacheDir string
	// TempDir holds the clones a verification needs deeper than the
	// local copy, each removed when its call returns; "" is the system's
	// temporary directory.
	TempDir string
}

// Branch reads and writes the status branch of a repository. The
// branch is an orphan (it shares no history with the watched branch) and
// is created on the first commit. Every call works on the process's local
// copy of the branch, brought up to the remote's head first
// (local.go), without a work tree, and reads only the files it is
// asked for (tree.go). It is safe for concurrent use: calls on one
// copy take turns.
type Branch struct {
	opts  Options
	group commitGroup

	mu     sync.Mutex
	local  *localCopy
	closed bool

	previews previewCache
}

// New returns a Branch for opts.
func New(opts Options) *Branch {
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = DefaultAttempts
	}
	if opts.SearchDepth == 0 {
		opts.SearchDepth = DefaultSearchDepth
	}
	opts.Limits = opts.Limits.WithDefaults()
	return &Branch{opts: opts, group: newCommitGroup()}
}

// copy returns b's local copy, acquired on first use.
func (b *Branch) copy() (*localCopy, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("status branch closed")
	}
	if b.local == nil {
		l, err := acquireCopy(b.opts)
		if err != nil {
			return nil, err
		}
		b.local = l
	}
	return b.local, nil
}

// Close releases b's local copy: its directory stays in CacheDir for the
// next Branch of the same branch (in this process or another), or
// is removed when it is temporary. b is not used after Close.
func (b *Branch) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.local != nil && !b.closed {
		b.local.release()
	}
	b.closed = true
}

// ReadFile returns the content of name (a slash-separated path) on the
// status branch, as Read trusts it, or os.ErrNotExist when the file or
// the branch does not exist.
func (b *Branch) ReadFile(ctx context.Context, name string) ([]byte, error) {
	co, err := b.checkout(ctx)
	if err == nil && co != nil {
		defer co.close()
		var data []byte
		var ok bool
		if data, ok, err = co.file(name); err == nil && ok {
			return data, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s from status branch %s: %w", name, b.opts.Branch, err)
	}
	return nil, os.ErrNotExist
}

// ReadFiles returns Read's files.
func (b *Branch) ReadFiles(ctx context.Context, dir string) (map[string][]byte, error) {
	r, err := b.Read(ctx, dir)
	return r.Files, err
}

// Read returns every file under dir (a slash-separated path; "" for the
// whole branch) on the status branch, by path, but those under the
// folders of dir named in skip (an app's previews, when its records are
// read). A missing branch or directory gives no files.
//
// With SigningKeyFile set, the head must be a commit that key signed.
// Another head (unsigned, or signed by anyone else) is refused: the files
// come from its newest first-parent ancestor the key signed, at most
// SearchDepth commits below it, or there are none; Refused says why.
func (b *Branch) Read(ctx context.Context, dir string, skip ...string) (status.Read, error) {
	co, err := b.checkout(ctx)
	if err != nil {
		return status.Read{}, fmt.Errorf("read %s from status branch %s: %w", dir, b.opts.Branch, err)
	}
	out := map[string][]byte{}
	if co == nil {
		return status.Read{Files: out}, nil
	}
	defer co.close()
	if err := co.files(dir, out, skip...); err != nil {
		return status.Read{}, fmt.Errorf("read %s from status branch %s: %w", dir, b.opts.Branch, err)
	}
	return co.read(out), nil
}

// ReadEach returns Read's result for each of dirs from one clone of the
// branch (a reader of every app's status clones once, not once per app):
// every read is of the same commit, and each has the read limits to
// itself. A folder that cannot be read (over its limits) has Err set and
// no files; the others are read.
func (b *Branch) ReadEach(ctx context.Context, dirs []string) (map[string]status.Read, error) {
	co, err := b.checkout(ctx)
	if err != nil {
		return nil, fmt.Errorf("read status branch %s: %w", b.opts.Branch, err)
	}
	if co != nil {
		defer co.close()
	}
	out := make(map[string]status.Read, len(dirs))
	for _, dir := range dirs {
		files := map[string][]byte{}
		if co == nil {
			out[dir] = status.Read{Files: files}
			continue
		}
		co.tr = nil // a budget of its own
		if err := co.files(dir, files); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// One folder over its limits does not hide the others.
			out[dir] = status.Read{Head: co.head.String(), Err: fmt.Errorf("read %s from status branch %s: %w", dir, b.opts.Branch, err)}
			continue
		}
		out[dir] = co.read(files)
	}
	return out, nil
}

// Commit writes files (path → content; nil content deletes the path) on
// top of the status branch as one commit with message msg and pushes it.
// With SigningKeyFile set and a refused head (see Read), the commit still
// goes on top of that head, so no one's push is lost and no force-push is
// needed, but its tree is the trusted one plus files: what was written
// without the key is dropped, and the message says so. A push rejected
// because another writer moved the branch is retried on the new head with
// backoff, so neither writer's records are lost. Calls that overlap in one
// process are committed together (group.go): one clone and one
// push for all of them, so the apps of a replica do not race each other
// for the branch. It returns the new commit's hash, or ErrNoChange when
// files change nothing.
func (b *Branch) Commit(ctx context.Context, files map[string][]byte, msg string) (string, error) {
	return b.group.commit(ctx, b, files, msg)
}

// commitBatch commits batch as one commit, retrying a rejected push on
// the new head, and gives each call its result.
func (b *Branch) commitBatch(ctx context.Context, batch []*pendingCommit) {
	var lastErr error
	for attempt := range b.opts.MaxAttempts {
		if batch = fenced(batch); len(batch) == 0 {
			return
		}
		if attempt > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(backoff(attempt)):
			}
			if ctx.Err() != nil {
				lastErr = ctx.Err()
				break
			}
			batch = b.group.absorb(batch)
		}
		results, err := b.commitOnce(ctx, batch)
		if err == nil {
			for _, p := range batch {
				p.done <- results[p]
			}
			return
		}
		lastErr = err
		if fence.IsExpired(err) {
			continue // the calls whose claim ended are answered above
		}
		// A remote head the shallow clone has never seen shows up as
		// ErrObjectNotFound during the fast-forward check: it moved.
		if !errors.Is(err, git.ErrNonFastForwardUpdate) && !errors.Is(err, plumbing.ErrObjectNotFound) && !isRejected(err) {
			break
		}
		b.group.lost()
		if attempt == b.opts.MaxAttempts-1 {
			lastErr = fmt.Errorf("another writer moved the branch before each of %d pushes (last: %w); the record is tried again at the next poll", b.opts.MaxAttempts, err)
		}
	}
	err := fmt.Errorf("commit status to branch %s: %w", b.opts.Branch, b.explain(lastErr))
	if errors.Is(lastErr, context.Canceled) || errors.Is(lastErr, context.DeadlineExceeded) {
		err = lastErr // the committing call's context: others try again
	}
	for _, p := range batch {
		p.done <- commitResult{err: err}
	}
}

// fenced answers the calls of batch whose claim on their app ended
// (internal/fence) with that error and returns the others.
func fenced(batch []*pendingCommit) []*pendingCommit {
	var live []*pendingCommit
	for _, p := range batch {
		if err := fence.Check(p.ctx); err != nil {
			p.done <- commitResult{err: fmt.Errorf("commit status: %w", err)}
			continue
		}
		live = append(live, p)
	}
	return live
}

// DefaultAttempts is how many pushes a status commit tries by
// default before it gives up until the next poll: enough that a replica
// among several busy ones, which wins each race with odds of about 1 in
// N, almost never runs out ((2/3)^30 is 5 in a million).
const DefaultAttempts = 30

// commitOnce makes one commit of the calls of batch on a fresh checkout
// and pushes it. A call whose files fail to merge gets that error, one
// whose files change nothing ErrNoChange; both stay out of the commit.
// The error returned is the push's (or the checkout's), for every call.
func (b *Branch) commitOnce(ctx context.Context, batch []*pendingCommit) (map[*pendingCommit]commitResult, error) {
	co, err := b.checkout(ctx)
	if err == nil && co == nil {
		co, err = b.orphan()
	}
	if err != nil {
		return nil, err
	}
	defer co.close()
	results := map[*pendingCommit]commitResult{}
	all := map[string][]byte{}
	var parts []*pendingCommit
	var tree plumbing.Hash // of the one part, when there is one
	for _, p := range batch {
		files, err := b.merge(co, p.files)
		if err != nil {
			results[p] = commitResult{err: fmt.Errorf("commit status to branch %s: %w", b.opts.Branch, err)}
			continue
		}
		base, after, err := co.edit(files)
		if err != nil {
			return nil, err
		}
		if after == base && co.refused == nil {
			results[p] = commitResult{err: ErrNoChange}
			continue
		}
		maps.Copy(all, files)
		parts = append(parts, p)
		tree = after
	}
	switch {
	case len(parts) == 0:
		return results, nil
	case len(parts) > 1:
		if _, tree, err = co.edit(all); err != nil {
			return nil, err
		}
	}
	hash, err := co.commit(tree, co.restoreMessage(batchMessage(parts)), b.opts)
	if err != nil {
		return nil, err
	}
	auth, err := sources.Transport(b.opts.URL, b.opts.Auth)
	if err != nil {
		return nil, err
	}
	ref := plumbing.NewBranchReferenceName(b.opts.Branch)
	start := time.Now()
	// The push needs every committed call's claim: checked here for any
	// transport, and by HTTP's again as each request leaves (fence.go).
	pctx := ctx
	for _, p := range parts {
		pctx = fence.Join(pctx, p.ctx)
	}
	if err := fence.Check(pctx); err != nil {
		return nil, err
	}
	if err := b.push(pctx, co, ref, hash, tree, auth); err != nil {
		return nil, err
	}
	if co.local != nil && !co.temp {
		co.local.pushed(hash, start)
	}
	if b.opts.Anchor != nil && b.opts.SigningKeyFile != "" {
		// The push landed: a failure to move the anchor leaves it on an
		// ancestor of the new head, which reads still accept.
		_ = b.opts.Anchor.Set(ctx, hash.String())
	}
	for _, p := range parts {
		results[p] = commitResult{hash: hash.String()}
	}
	return results, nil
}

// clone makes a shallow clone of the status branch, depth commits deep,
// into a new statusStore (the caller removes it). It returns a nil
// repository when the branch does not exist yet.
func (b *Branch) clone(ctx context.Context, depth int) (*git.Repository, *statusStore, error) {
	auth, err := sources.Transport(b.opts.URL, b.opts.Auth)
	if err != nil {
		return nil, nil, err
	}
	store, err := newStatusStore(b.opts.TempDir, b.opts.Branch, b.opts.Limits.MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	repo, err := git.CloneContext(ctx, store, nil, &git.CloneOptions{
		URL:           b.opts.URL,
		Auth:          auth,
		ReferenceName: plumbing.NewBranchReferenceName(b.opts.Branch),
		SingleBranch:  true,
		Depth:         depth,
		Tags:          git.NoTags,
	})
	if err != nil {
		store.remove()
		if isMissingRef(err) {
			return nil, nil, nil
		}
		var limit *LimitError
		if errors.As(err, &limit) {
			return nil, nil, limit
		}
		return nil, nil, b.explain(err)
	}
	return repo, store, nil
}

// explain returns a transport error with the credentials it concerns
// named and the URL redacted.
func (b *Branch) explain(err error) error {
	return sources.ExplainError(err, b.opts.URL, b.opts.Auth)
}

// mergeError is a failure of Options.Merge: not retried.
type mergeError struct {
	path string
	err  error
}

func (e *mergeError) Error() string {
	return fmt.Sprintf("merge %s with the status branch's version: %v", e.path, e.err)
}
func (e *mergeError) Unwrap() error { return e.err }

// merge returns files with each written file that exists on the
// checkout's trusted tree merged by the Merge hook; files itself is not
// changed.
func (b *Branch) merge(co *statusCheckout, files map[string][]byte) (map[string][]byte, error) {
	if b.opts.Merge == nil {
		return files, nil
	}
	out := make(map[string][]byte, len(files))
	for name, ours := range files {
		out[name] = ours
		if ours == nil {
			continue
		}
		remote, ok, err := co.file(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // not on the remote head: nothing to merge
		}
		merged, err := b.opts.Merge(name, remote, ours)
		if err != nil {
			return nil, &mergeError{path: name, err: err}
		}
		out[name] = merged
	}
	return out, nil
}

// orphan starts the status branch in the local copy: nothing trusted and
// no head.
func (b *Branch) orphan() (*statusCheckout, error) {
	l, err := b.copy()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if err := l.open(b); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	return &statusCheckout{repo: l.repo, store: l.store, lim: b.opts.Limits, local: l}, nil
}

func isMissingRef(err error) bool {
	var noMatch git.NoMatchingRefSpecError
	return errors.Is(err, plumbing.ErrReferenceNotFound) || errors.As(err, &noMatch) ||
		errors.Is(err, transport.ErrEmptyRemoteRepository)
}

// isRejected reports whether a push was refused because the remote
// branch moved or was being moved by another writer at the same moment
// (go-git reports some such refusals only as text).
func isRejected(err error) bool {
	s := err.Error()
	for _, text := range []string{"non-fast-forward", "fetch first", "rejected", "failed to update ref", "cannot lock ref"} {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}
