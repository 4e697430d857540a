package sources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// ErrNoChange is returned by StatusBranch.Commit when the changes leave
// the branch as it is: no commit is made.
var ErrNoChange = errors.New("status unchanged: nothing to commit")

// StatusOptions configures a StatusBranch.
type StatusOptions struct {
	URL    string
	Auth   Credentials
	Branch string
	// AuthorName and AuthorEmail sign the status commits as author and
	// committer.
	AuthorName, AuthorEmail string
	// MaxAttempts bounds the retries of a push rejected as
	// non-fast-forward. Default 10.
	MaxAttempts int
	// SigningKeyFile, when set, signs every status commit: an armored PGP
	// secret key or an OpenSSH private key, without a passphrase. Reads
	// then trust only commits it signed (see Read).
	SigningKeyFile string
	// SearchDepth bounds how many commits below a refused head a read
	// searches for one SigningKeyFile signed. Default
	// DefaultStatusSearchDepth.
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
}

// StatusBranch reads and writes the status branch of a repository. The
// branch is an orphan (it shares no history with the watched branch) and
// is created on the first commit. Every call works on a fresh shallow
// clone in memory: the status branch is small.
type StatusBranch struct {
	opts StatusOptions
}

// NewStatusBranch returns a StatusBranch for opts.
func NewStatusBranch(opts StatusOptions) *StatusBranch {
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 10
	}
	if opts.SearchDepth == 0 {
		opts.SearchDepth = DefaultStatusSearchDepth
	}
	return &StatusBranch{opts: opts}
}

// ReadFile returns the content of name (a slash-separated path) on the
// status branch, as Read trusts it, or os.ErrNotExist when the file or
// the branch does not exist.
func (b *StatusBranch) ReadFile(ctx context.Context, name string) ([]byte, error) {
	co, err := b.checkout(ctx)
	if err != nil {
		return nil, fmt.Errorf("read %s from status branch %s: %w", name, b.opts.Branch, err)
	}
	if co == nil {
		return nil, os.ErrNotExist
	}
	f, err := co.fs.Open(name)
	if err != nil {
		return nil, os.ErrNotExist
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadFiles returns Read's files.
func (b *StatusBranch) ReadFiles(ctx context.Context, dir string) (map[string][]byte, error) {
	r, err := b.Read(ctx, dir)
	return r.Files, err
}

// Read returns every file under dir (a slash-separated path; "" for the
// whole branch) on the status branch, by path. A missing branch or
// directory gives no files.
//
// With SigningKeyFile set, the head must be a commit that key signed.
// Another head (unsigned, or signed by anyone else) is refused: the files
// come from its newest first-parent ancestor the key signed, at most
// SearchDepth commits below it, or there are none; Refused says why.
func (b *StatusBranch) Read(ctx context.Context, dir string) (StatusRead, error) {
	co, err := b.checkout(ctx)
	if err != nil {
		return StatusRead{}, fmt.Errorf("read %s from status branch %s: %w", dir, b.opts.Branch, err)
	}
	out := map[string][]byte{}
	if co == nil {
		return StatusRead{Files: out}, nil
	}
	err = util.Walk(co.fs, path.Clean("/"+dir), func(p string, info os.FileInfo, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return filepath.SkipDir
			}
			return err
		}
		if info.IsDir() {
			return nil
		}
		data, err := util.ReadFile(co.fs, p)
		if err != nil {
			return err
		}
		out[strings.TrimPrefix(p, "/")] = data
		return nil
	})
	if err != nil {
		return StatusRead{}, fmt.Errorf("read %s from status branch %s: %w", dir, b.opts.Branch, err)
	}
	return co.read(out), nil
}

// Commit writes files (path → content; nil content deletes the path) on
// top of the status branch as one commit with message msg and pushes it.
// With SigningKeyFile set and a refused head (see Read), the commit still
// goes on top of that head, so no one's push is lost and no force-push is
// needed, but its tree is the trusted one plus files: what was written
// without the key is dropped, and the message says so. A push rejected because another writer moved the branch is retried on
// the new head with backoff, so neither writer's records are lost. It
// returns the new commit's hash, or ErrNoChange when nothing changed.
func (b *StatusBranch) Commit(ctx context.Context, files map[string][]byte, msg string) (string, error) {
	var lastErr error
	for attempt := range b.opts.MaxAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(backoff(attempt)):
			}
		}
		hash, err := b.commitOnce(ctx, files, msg)
		if err == nil || errors.Is(err, ErrNoChange) {
			return hash, err
		}
		lastErr = err
		// A remote head the shallow clone has never seen shows up as
		// ErrObjectNotFound during the fast-forward check: it moved.
		var merge *mergeError
		if errors.As(err, &merge) || !errors.Is(err, git.ErrNonFastForwardUpdate) && !errors.Is(err, plumbing.ErrObjectNotFound) && !isRejected(err) {
			break
		}
	}
	return "", fmt.Errorf("commit status to branch %s: %w", b.opts.Branch, b.explain(lastErr))
}

// backoff returns the wait before retry attempt n (1, 2, …): growing,
// with jitter so that two writers that collided do not collide again.
func backoff(n int) time.Duration {
	base := time.Duration(n*n) * 50 * time.Millisecond
	return base + rand.N(base)
}

func (b *StatusBranch) commitOnce(ctx context.Context, files map[string][]byte, msg string) (string, error) {
	co, err := b.checkout(ctx)
	if err != nil {
		return "", err
	}
	if co == nil {
		co = &statusCheckout{}
		if co.repo, co.fs, err = b.initOrphan(); err != nil {
			return "", err
		}
	}
	wt, err := co.repo.Worktree()
	if err != nil {
		return "", err
	}
	if files, err = b.merge(co.fs, files); err != nil {
		return "", err
	}
	if err := writeChanges(co.fs, wt, files); err != nil {
		return "", err
	}
	st, err := wt.Status()
	if err != nil {
		return "", err
	}
	if st.IsClean() && co.refused == nil {
		return "", ErrNoChange
	}
	sig := &object.Signature{Name: b.opts.AuthorName, Email: b.opts.AuthorEmail, When: time.Now()}
	opts := &git.CommitOptions{Author: sig, Committer: sig}
	if err := signingOptions(b.opts.SigningKeyFile, opts); err != nil {
		return "", err
	}
	msg = co.restoreCommit(opts, msg)
	hash, err := wt.Commit(msg, opts)
	if err != nil {
		return "", err
	}
	auth, err := authFor(b.opts.URL, b.opts.Auth)
	if err != nil {
		return "", err
	}
	ref := plumbing.NewBranchReferenceName(b.opts.Branch)
	err = co.repo.PushContext(ctx, &git.PushOptions{
		RemoteName: "origin",
		Auth:       auth,
		RefSpecs:   []gitconfig.RefSpec{gitconfig.RefSpec(fmt.Sprintf("%s:%s", ref, ref))},
	})
	if err != nil {
		return "", err
	}
	if b.opts.Anchor != nil && b.opts.SigningKeyFile != "" {
		// The push landed: a failure to move the anchor leaves it on an
		// ancestor of the new head, which reads still accept.
		_ = b.opts.Anchor.Set(ctx, hash.String())
	}
	return hash.String(), nil
}

// clone makes a shallow in-memory clone of the status branch, depth
// commits deep. It returns a nil repository when the branch does not
// exist yet.
func (b *StatusBranch) clone(ctx context.Context, depth int) (*git.Repository, billy.Filesystem, error) {
	auth, err := authFor(b.opts.URL, b.opts.Auth)
	if err != nil {
		return nil, nil, err
	}
	fs := memfs.New()
	repo, err := git.CloneContext(ctx, memory.NewStorage(), fs, &git.CloneOptions{
		URL:           b.opts.URL,
		Auth:          auth,
		ReferenceName: plumbing.NewBranchReferenceName(b.opts.Branch),
		SingleBranch:  true,
		Depth:         depth,
		Tags:          git.NoTags,
	})
	if err != nil {
		if isMissingRef(err) {
			return nil, nil, nil
		}
		return nil, nil, b.explain(err)
	}
	return repo, fs, nil
}

// explain returns a transport error with the credentials it concerns
// named and the URL redacted.
func (b *StatusBranch) explain(err error) error {
	return redactError(explainAuth(err, b.opts.URL, b.opts.Auth), b.opts.URL)
}

// mergeError is a failure of StatusOptions.Merge: not retried.
type mergeError struct {
	path string
	err  error
}

func (e *mergeError) Error() string {
	return fmt.Sprintf("merge %s with the status branch's version: %v", e.path, e.err)
}
func (e *mergeError) Unwrap() error { return e.err }

// merge returns files with each written file that exists in fs (the
// remote head) merged by the Merge hook; files itself is not changed.
func (b *StatusBranch) merge(fs billy.Filesystem, files map[string][]byte) (map[string][]byte, error) {
	if b.opts.Merge == nil {
		return files, nil
	}
	out := make(map[string][]byte, len(files))
	for name, ours := range files {
		out[name] = ours
		if ours == nil {
			continue
		}
		remote, err := util.ReadFile(fs, name)
		if err != nil {
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

// initOrphan starts the status branch: an empty in-memory repository
// whose HEAD is the branch, with origin set to the source URL.
func (b *StatusBranch) initOrphan() (*git.Repository, billy.Filesystem, error) {
	fs := memfs.New()
	repo, err := git.Init(memory.NewStorage(), fs)
	if err != nil {
		return nil, nil, err
	}
	head := plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(b.opts.Branch))
	if err := repo.Storer.SetReference(head); err != nil {
		return nil, nil, err
	}
	if _, err := repo.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{b.opts.URL}}); err != nil {
		return nil, nil, err
	}
	return repo, fs, nil
}

func writeChanges(fs billy.Filesystem, wt *git.Worktree, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		content := files[name]
		if content == nil {
			if _, err := fs.Stat(name); err == nil {
				if _, err := wt.Remove(name); err != nil {
					return fmt.Errorf("remove %s: %w", name, err)
				}
			}
			continue
		}
		if err := fs.MkdirAll(path.Dir(name), 0o755); err != nil {
			return err
		}
		f, err := fs.Create(name)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, bytes.NewReader(content)); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if _, err := wt.Add(name); err != nil {
			return fmt.Errorf("add %s: %w", name, err)
		}
	}
	return nil
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
