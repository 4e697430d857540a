package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// Depths of history IsAncestor fetches while it looks for the older
// commit: it starts at ancestryDepth and doubles up to maxAncestryDepth.
const (
	ancestryDepth    = 200
	maxAncestryDepth = 25600
)

// ErrAncestryUnknown is returned by IsAncestor when the older commit is
// not within maxAncestryDepth commits of the newer one and the history
// goes on: whether the branch was force-pushed is not known.
var ErrAncestryUnknown = errors.New("ancestry unknown")

// IsAncestor reports whether older is an ancestor of newer (a
// fast-forward from older to newer). When the shallow cache does not
// reach older, it deepens the fetch of newer's branch, 200 commits, then
// twice as many each time, until it finds older or the history ends (then
// false: the branch was force-pushed). Past maxAncestryDepth commits it
// gives up with ErrAncestryUnknown rather than call a long fast-forward
// a rewrite.
func (s *GitSource) IsAncestor(ctx context.Context, older, newer SourceRevision) (bool, error) {
	repo, err := s.open()
	if err != nil {
		return false, err
	}
	from, target := plumbing.NewHash(newer.Commit), plumbing.NewHash(older.Commit)
	found, complete := walkParents(repo, target, from)
	if found || complete || newer.Ref == "" {
		return found, nil
	}
	auth, err := authFor(s.opts.URL, s.opts.Auth)
	if err != nil {
		return false, fmt.Errorf("fetch history of %s: %w", newer.Ref, err)
	}
	spec := gitconfig.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", newer.Ref, newer.Ref))
	limit := s.ancestryLimit
	if limit == 0 {
		limit = maxAncestryDepth
	}
	for depth := ancestryDepth; depth <= limit; depth *= 2 {
		err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.opts.URL, Auth: auth,
			RefSpecs: []gitconfig.RefSpec{spec}, Depth: depth, Force: true, Tags: git.NoTags})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return false, fmt.Errorf("fetch history of %s: %w", newer.Ref, s.explain(err))
		}
		if found, complete = walkParents(repo, target, from); found || complete {
			return found, nil
		}
	}
	return false, fmt.Errorf("look for %s in the history of %s: %w: it is not within %d commits of %s",
		older.Short(), newer.Ref, ErrAncestryUnknown, limit, newer.Short())
}

// walkParents looks for target among the ancestors of the from commits
// (themselves included) as far as the local objects go; complete says the
// walk reached the roots rather than a commit whose parents are not in
// the cache.
func walkParents(repo *git.Repository, target plumbing.Hash, from ...plumbing.Hash) (found, complete bool) {
	seen := map[plumbing.Hash]bool{}
	queue := append([]plumbing.Hash(nil), from...)
	complete = true
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == target {
			return true, true
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := repo.CommitObject(h)
		if err != nil {
			complete = false
			continue
		}
		queue = append(queue, c.ParentHashes...)
	}
	return false, complete
}
