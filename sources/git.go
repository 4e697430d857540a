package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Ref says what a source follows. Exactly one field is set.
type Ref struct {
	Branch string
	Tag    string
	// Semver is a range over the repository's tags (">=1.2.0 <2.0.0");
	// the highest matching tag wins.
	Semver string
	// Commit is a full commit hash.
	Commit string
	// Name is a branch, a tag or a full ref name (refs/pull/7/head),
	// tried in that order: what a command line's --ref means.
	Name string
}

// Options configures a GitSource.
type Options struct {
	// URL is the repository's URL. It may carry credentials; they are
	// redacted from every error.
	URL string
	Ref Ref
	// Auth supplies credentials; nil means anonymous.
	Auth Credentials
	// CacheDir holds the on-disk object store and the checked-out
	// snapshots.
	CacheDir string
	// KeepSnapshots is how many checked-out commits to keep on disk;
	// older ones are removed. Default 3.
	KeepSnapshots int
	// Verify, when set, refuses revisions whose signature is missing or
	// not from a trusted key.
	Verify *VerifyOptions
	// Checkout bounds each checkout.
	Checkout CheckoutLimits
}

// Snapshot is one fetched commit, its tree checked out in Dir.
type Snapshot struct {
	Revision SourceRevision
	// Dir holds the commit's files. It must be treated as read-only.
	Dir string
	// Index holds the git hash of every path of the commit.
	Index TreeHashes
	// Trust is the trust domain the snapshot was made in: Trusted for the
	// followed ref (its signature verified, or verification off by the
	// operator's choice), Untrusted for pull-request heads. Nothing made
	// for an untrusted snapshot is ever reused for a trusted one.
	Trust Trust
	// Refused names the higher tags of a semver range that were passed
	// over because their signatures did not verify, each with why: the
	// snapshot is the highest tag in range that verifies.
	Refused []string
	// Author is the commit's author's address, as the commit says (not
	// verified): previews take turns across authors by it.
	Author string
}

// Trust is a trust domain: who may have written a snapshot's content.
type Trust string

const (
	// Trusted content may be applied: the followed ref, verified when
	// verification is on.
	Trusted Trust = "trusted"
	// Untrusted content is previewed, never applied: pull-request heads.
	Untrusted Trust = "untrusted"
)

// GitSource fetches a git repository with go-git into an on-disk cache
// and checks out the followed ref's commit. It is not safe for concurrent
// use: one agent loop polls it.
type GitSource struct {
	opts Options
	// trust is the source's trust domain; repoDir and treesDir are its
	// own, never shared with a source of another domain.
	trust    Trust
	repoDir  string
	treesDir string
	// last is the most recent snapshot, index included, so that an idle
	// poll reuses it.
	last Snapshot
	// ancestryLimit bounds the history IsAncestor fetches; 0 means
	// maxAncestryDepth.
	ancestryLimit int
}

// NewGitSource returns a source for opts. It touches nothing until Fetch.
func NewGitSource(opts Options) (*GitSource, error) {
	if opts.URL == "" {
		return nil, errors.New("git source: URL is required")
	}
	if opts.CacheDir == "" {
		return nil, errors.New("git source: cache directory is required")
	}
	if opts.KeepSnapshots == 0 {
		opts.KeepSnapshots = 3
	}
	s := &GitSource{opts: opts}
	s.setTrust(Trusted)
	return s, nil
}

// setTrust puts the source in trust domain t, with its own bare
// repository and checkouts: CacheDir/git/<t>/<key>.git and
// CacheDir/trees/<t>/<key>, where key hashes the domain and the URL. A
// pull-request head's objects, refs and checkouts are never where a
// trusted source looks for its own, whatever their commit.
func (s *GitSource) setTrust(t Trust) {
	sum := sha256.Sum256([]byte(string(t) + "\x00" + s.opts.URL))
	key := hex.EncodeToString(sum[:8])
	s.trust = t
	s.repoDir = filepath.Join(s.opts.CacheDir, "git", string(t), key+".git")
	s.treesDir = filepath.Join(s.opts.CacheDir, "trees", string(t), key)
}

// URL returns the source's URL with credentials redacted.
func (s *GitSource) URL() string { return RedactURL(s.opts.URL) }

// Fetch resolves the followed ref on the remote, fetches its commit when
// it is not on disk yet and returns the checked-out snapshot. When the
// remote ref still points at a commit already checked out, Fetch lists
// the remote's refs and transfers nothing else. The snapshot's Trust is
// the source's domain: Untrusted for a source made by ForRef, else
// Trusted.
func (s *GitSource) Fetch(ctx context.Context) (Snapshot, error) {
	snap, err := s.fetch(ctx)
	if err != nil {
		return Snapshot{}, fmt.Errorf("fetch %s: %w", s.URL(), s.explain(err))
	}
	return snap, nil
}

// explain returns a transport error with the credentials it concerns
// named (AuthError) and the URL redacted.
func (s *GitSource) explain(err error) error {
	return redactError(explainAuth(err, s.opts.URL, s.opts.Auth), s.opts.URL)
}

func (s *GitSource) fetch(ctx context.Context) (Snapshot, error) {
	auth, err := authFor(s.opts.URL, s.opts.Auth)
	if err != nil {
		return Snapshot{}, err
	}
	repo, err := s.open()
	if err != nil {
		return Snapshot{}, err
	}
	tgt, err := s.resolve(ctx, repo, auth)
	if err != nil {
		return Snapshot{}, err
	}
	// In a semver range, a tag that does not verify is passed over for
	// the next highest: one unsigned tag pushed in range cannot freeze
	// the source.
	var refused []string
	for _, t := range append([]target{tgt}, tgt.lower...) {
		snap, err := s.fetchTarget(ctx, repo, auth, t)
		var ve *VerificationError
		if err == nil {
			snap.Refused = refused
			return snap, nil
		}
		if !errors.As(err, &ve) || len(refused) == len(tgt.lower) {
			return Snapshot{}, err
		}
		refused = append(refused, err.Error())
	}
	return Snapshot{}, errors.New("no tag to fetch") // not reached: the last candidate returns
}

// fetchTarget fetches, verifies and checks out one resolved target.
func (s *GitSource) fetchTarget(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, tgt target) (Snapshot, error) {
	rev := tgt.rev
	// One hash names the checkout, is verified, checked out, indexed and
	// handed on: a revision whose text is not exactly that hash (a short
	// or upper-case one) is refused rather than read two ways.
	commit := plumbing.NewHash(rev.Commit)
	if commit.String() != rev.Commit {
		return Snapshot{}, fmt.Errorf("commit %q is not a full lower-case commit hash", rev.Commit)
	}
	dir := filepath.Join(s.treesDir, rev.Commit)
	if s.last.Revision == rev && s.last.Dir == dir {
		// An idle poll transfers nothing, but the signature is checked
		// again from the cache: the key files are read at every poll,
		// so a key removed from them stops the revision at once. A tag
		// re-made on the same commit fetches its new tag object first.
		if err := s.verify(ctx, repo, auth, tgt); err != nil {
			return Snapshot{}, err
		}
		return s.last, nil
	}
	_, statErr := os.Stat(dir)
	if statErr != nil && !s.tagMode() {
		if err := s.fetchCommit(ctx, repo, auth, rev.Commit, tgt.refspec); err != nil {
			return Snapshot{}, err
		}
	}
	// Verified before anything is checked out or handed on, and again
	// for a checkout already on disk (the keys may have changed). In tag
	// mode this fetches the tag the remote advertises, and the commit it
	// points at, whenever the cache lacks either.
	if err := s.verify(ctx, repo, auth, tgt); err != nil {
		return Snapshot{}, err
	}
	if statErr != nil {
		if err := checkout(repo, commit, dir, s.last, s.opts.Checkout); err != nil {
			return Snapshot{}, err
		}
		s.pruneSnapshots(rev.Commit)
	}
	idx, err := treeHashes(repo, commit)
	if err != nil {
		return Snapshot{}, err
	}
	s.last = Snapshot{Revision: rev, Dir: dir, Index: idx, Trust: s.trust}
	if c, err := repo.CommitObject(commit); err == nil {
		s.last.Author = c.Author.Email
	}
	return s.last, nil
}

// Head lists the remote's refs and returns the revision the followed ref
// points at, fetching no objects.
func (s *GitSource) Head(ctx context.Context) (SourceRevision, error) {
	auth, err := authFor(s.opts.URL, s.opts.Auth)
	if err != nil {
		return SourceRevision{}, fmt.Errorf("list %s: %w", s.URL(), err)
	}
	repo, err := s.open()
	if err != nil {
		return SourceRevision{}, err
	}
	tgt, err := s.resolve(ctx, repo, auth)
	if err != nil {
		return SourceRevision{}, fmt.Errorf("list %s: %w", s.URL(), s.explain(err))
	}
	return tgt.rev, nil
}

// open opens the cache's bare repository, creating it on first use.
func (s *GitSource) open() (*git.Repository, error) {
	repo, err := git.PlainOpen(s.repoDir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(s.repoDir, 0o755); err != nil {
			return nil, err
		}
		repo, err = git.PlainInit(s.repoDir, true)
		if err != nil {
			return nil, fmt.Errorf("init cache repository: %w", err)
		}
		_, err = repo.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{s.opts.URL}})
	}
	if err != nil {
		return nil, fmt.Errorf("open cache repository %s: %w", s.repoDir, err)
	}
	return repo, nil
}

// fetchCommit fetches refspec at depth 1 and checks that commit arrived;
// a pinned commit, which no ref names (an empty refspec), is fetched by
// fetchPinned.
func (s *GitSource) fetchCommit(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, commit string, refspec gitconfig.RefSpec) error {
	if refspec == "" {
		return s.fetchPinned(ctx, repo, auth, plumbing.NewHash(commit))
	}
	err := repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.opts.URL, Auth: auth,
		RefSpecs: []gitconfig.RefSpec{refspec}, Depth: 1, Force: true, Tags: git.NoTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return err
	}
	if _, err := repo.CommitObject(plumbing.NewHash(commit)); err != nil {
		return fmt.Errorf("commit %s not found after fetch: %w", commit, err)
	}
	return nil
}

// pruneSnapshots removes checked-out commits beyond KeepSnapshots, oldest
// first, never keep.
func (s *GitSource) pruneSnapshots(keep string) {
	entries, err := os.ReadDir(s.treesDir)
	if err != nil || len(entries) <= s.opts.KeepSnapshots {
		return
	}
	type dated struct {
		name string
		mod  int64
	}
	var all []dated
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.Name() != keep {
			all = append(all, dated{e.Name(), info.ModTime().UnixNano()})
		}
	}
	for len(all) >= s.opts.KeepSnapshots {
		oldest := 0
		for i := range all {
			if all[i].mod < all[oldest].mod {
				oldest = i
			}
		}
		_ = os.RemoveAll(filepath.Join(s.treesDir, all[oldest].name))
		all = append(all[:oldest], all[oldest+1:]...)
	}
}
