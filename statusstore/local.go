package statusstore

import (
	"github.com/roleout/roleout/sources"

	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// The status branch is kept in one local copy per process, repository
// and branch (localCopy), so that a read costs a ref listing when the
// branch has not moved and an incremental fetch of what moved when it
// has, and a commit pushes only its own new objects. The first fetch is a
// depth-1 clone; later ones send the copy's head as what the agent has,
// so the server sends the commits above it and only the objects they add.
// A copy is trusted for nothing: the commit a read takes is the one the
// remote names at that moment, verified as every read is (signature,
// anchor), and objects are addressed by their hash. A copy that fails to
// open or read is removed and fetched anew; one that has taken
// maxLocalUpdates fetches and commits is too, which bounds its disk and
// the history a push walks.

// maxLocalUpdates is how many fetches and commits a local copy takes
// before it is fetched anew as a depth-1 clone.
const maxLocalUpdates = 256

// localCopies are this process's local copies, by directory: the
// Branch values of one repository, branch and cache directory share
// one.
var localCopies = struct {
	sync.Mutex
	m map[string]*localCopy
}{m: map[string]*localCopy{}}

// localCopy is one repository holding the status branch, without a work
// tree, in a directory locked against other processes for as long as it
// is in use. Every use holds mu.
type localCopy struct {
	mu    sync.Mutex
	key   string // the localCopies key; "" for a temporary copy
	refs  int    // Branch values using it
	dir   string
	lock  *os.File // nil for a temporary copy, removed when released
	store *statusStore
	repo  *git.Repository
	// head is the branch's head as the last sync found it (zero when the
	// branch did not exist), synced when that sync began.
	head    plumbing.Hash
	synced  time.Time
	updates int
	// incremental says the last fetch was onto a head the copy held.
	incremental bool
}

// acquireCopy returns the local copy of opts' branch: the process's one
// under opts.CacheDir/status when it is set (in the first of eight
// directories no other process holds), made on first use; else one of
// its own in a temporary directory.
func acquireCopy(opts Options) (*localCopy, error) {
	if opts.CacheDir == "" {
		return tempCopy(opts)
	}
	sum := sha256.Sum256([]byte(opts.URL + "\x00" + opts.Branch))
	key := filepath.Join(opts.CacheDir, "status", hex.EncodeToString(sum[:8]))
	localCopies.Lock()
	defer localCopies.Unlock()
	if l := localCopies.m[key]; l != nil {
		l.refs++
		return l, nil
	}
	l := &localCopy{key: key, refs: 1}
	if l.dir, l.lock = claimDir(key); l.dir == "" {
		return tempCopy(opts)
	}
	localCopies.m[key] = l
	return l, nil
}

// tempCopy returns a local copy of its own in a new temporary directory.
func tempCopy(opts Options) (*localCopy, error) {
	dir, err := os.MkdirTemp(opts.TempDir, "roleout-status-copy-")
	if err != nil {
		return nil, fmt.Errorf("make a directory for the status branch: %w", err)
	}
	return &localCopy{dir: dir, refs: 1}, nil
}

// claimDir returns the first of base, base.1, … base.7 whose lock file no
// other process holds, with its lock held; "" when all are held.
func claimDir(base string) (string, *os.File) {
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return "", nil
	}
	for i := range 8 {
		dir := base
		if i > 0 {
			dir = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return "", nil
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return dir, f
		}
		f.Close()
	}
	return "", nil
}

// release drops one user of l; the last one unlocks its directory, or
// removes it when it is temporary.
func (l *localCopy) release() {
	localCopies.Lock()
	defer localCopies.Unlock()
	if l.refs--; l.refs > 0 {
		return
	}
	if l.key != "" {
		delete(localCopies.m, l.key)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		_ = os.RemoveAll(l.dir)
		return
	}
	l.lock.Close()
}

// open opens the copy's repository, making it when there is none and
// making it anew when it cannot be opened.
func (l *localCopy) open(b *Branch) error {
	if l.store != nil {
		l.store.max, l.store.maxObject = b.opts.Limits.MaxBytes, b.opts.Limits.MaxBytes/8
		return nil
	}
	for attempt := range 2 {
		if err := os.MkdirAll(l.dir, 0o700); err != nil {
			return fmt.Errorf("make a directory for the status branch: %w", err)
		}
		store := newStatusStoreIn(l.dir, b.opts.Branch, b.opts.Limits.MaxBytes)
		repo, err := git.Open(store, nil)
		if errors.Is(err, git.ErrRepositoryNotExists) {
			repo, err = git.Init(store, nil)
		}
		if err == nil {
			l.store, l.repo = store, repo
			return nil
		}
		if attempt == 1 {
			return fmt.Errorf("open the local copy of the status branch in %s: %w", l.dir, err)
		}
		l.reset()
	}
	return nil
}

// reset removes the copy: the next sync fetches it anew.
func (l *localCopy) reset() {
	_ = os.RemoveAll(l.dir)
	l.store, l.repo = nil, nil
	l.head, l.synced, l.updates = plumbing.ZeroHash, time.Time{}, 0
}

// sync brings the copy up to the branch's head and returns it (zero when
// the branch does not exist). A call made before the last sync began
// takes that sync's head: it is at least as new as the branch was when
// the call was made.
func (l *localCopy) sync(ctx context.Context, b *Branch, since time.Time) (plumbing.Hash, error) {
	if !l.synced.IsZero() && l.synced.After(since) {
		return l.head, nil
	}
	if l.updates >= maxLocalUpdates {
		l.reset()
	}
	start := time.Now()
	head, err := l.fetch(ctx, b)
	var limit *LimitError
	if errors.As(err, &limit) && l.incremental {
		// Many commits above the copy's head may be more than a
		// depth-1 clone of the head: fetch it so, once.
		l.reset()
		head, err = l.fetch(ctx, b)
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	l.head, l.synced = head, start
	return head, nil
}

// fetch lists the remote's refs and, when the branch's head is not in
// the copy, fetches it: only what it adds to the copy's head, or a
// depth-1 clone into an empty copy.
func (l *localCopy) fetch(ctx context.Context, b *Branch) (plumbing.Hash, error) {
	if err := l.open(b); err != nil {
		return plumbing.ZeroHash, err
	}
	head, err := b.remoteHead(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if head.IsZero() || l.store.HasEncodedObject(head) == nil {
		return head, nil
	}
	auth, err := sources.Transport(b.opts.URL, b.opts.Auth)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	ref := plumbing.NewBranchReferenceName(b.opts.Branch)
	remote := git.NewRemote(l.store, &gitconfig.RemoteConfig{Name: "origin", URLs: []string{b.opts.URL}})
	depth := 0
	if _, err := l.store.Reference(ref); err != nil {
		depth = 1 // an empty copy: a clone of the head
	}
	l.incremental = depth == 0
	err = remote.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin", Auth: auth, Depth: depth, Tags: git.NoTags, Force: true,
		RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec("+" + ref + ":" + ref)},
	})
	l.updates++
	var limit *LimitError
	switch {
	case err == nil || errors.Is(err, git.NoErrAlreadyUpToDate):
	case isMissingRef(err):
		return plumbing.ZeroHash, nil
	case errors.As(err, &limit):
		return plumbing.ZeroHash, limit
	default:
		return plumbing.ZeroHash, b.explain(err)
	}
	got, err := l.store.Reference(ref)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("the fetch of status branch %s left no head: %w", b.opts.Branch, err)
	}
	return got.Hash(), nil
}

// pushed records that commit is the branch's head since start: a read
// made after start needs no ref listing.
func (l *localCopy) pushed(commit plumbing.Hash, start time.Time) {
	l.head, l.synced = commit, start
	l.updates++
}

// damaged reports whether err, met while reading the local copy, comes
// from a copy that is damaged: an object it should hold is missing or
// does not inflate, or a ref is empty (refs.go).
func damaged(err error) bool {
	return emptyRef(err) || errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, zlib.ErrChecksum) ||
		errors.Is(err, zlib.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, packfile.ErrMalformedPackFile) || errors.Is(err, idxfile.ErrMalformedIdxFile)
}
