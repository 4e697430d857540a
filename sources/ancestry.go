package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// ancestryDepth is how many commits IsAncestor fetches to look for the
// older commit when the shallow history does not reach it.
const ancestryDepth = 200

// IsAncestor reports whether older is an ancestor of newer (a fast-forward
// from older to newer), fetching up to ancestryDepth commits of ref's
// history when the shallow cache does not reach it. false means the
// branch was force-pushed (history rewritten), or that more than
// ancestryDepth commits separate the two.
func (s *GitSource) IsAncestor(ctx context.Context, older, newer Revision) (bool, error) {
	repo, err := s.open()
	if err != nil {
		return false, err
	}
	found, complete := walkParents(repo, plumbing.NewHash(newer.Commit), plumbing.NewHash(older.Commit))
	if found || complete || newer.Ref == "" {
		return found, nil
	}
	auth, err := authFor(s.opts.URL, s.opts.Auth)
	if err != nil {
		return false, err
	}
	spec := gitconfig.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", newer.Ref, newer.Ref))
	err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.opts.URL, Auth: auth,
		RefSpecs: []gitconfig.RefSpec{spec}, Depth: ancestryDepth, Force: true, Tags: git.NoTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return false, fmt.Errorf("fetch history of %s: %w", newer.Ref, redactError(err, s.opts.URL))
	}
	found, _ = walkParents(repo, plumbing.NewHash(newer.Commit), plumbing.NewHash(older.Commit))
	return found, nil
}

// walkParents looks for target among from's ancestors as far as the
// local objects go; complete says the walk reached the roots rather than
// a commit whose parents are not in the cache.
func walkParents(repo *git.Repository, from, target plumbing.Hash) (found, complete bool) {
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{from}
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
