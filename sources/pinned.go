package sources

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// pinnedRef is the cache's ref to the last pinned commit fetched by hash.
const pinnedRef = "refs/roleout/pinned"

// fullHistory is the depth that asks for a branch's whole history, the
// one `git fetch --unshallow` sends.
const fullHistory = 1<<31 - 1

// fetchPinned brings a pinned commit, which no ref of the remote names,
// into the cache. A commit already in the cache costs no request. Else
// it asks for the commit by hash at depth 1, which servers that allow
// reachable or tip SHA-1s in wants permit (GitHub, GitLab, git
// http-backend with uploadpack.allowReachableSHA1InWant). When the server
// refuses, it fetches the branches and tags ever deeper until the commit
// arrives or their history ends: a shallow cache of a later commit does
// not hold its ancestors.
func (s *GitSource) fetchPinned(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, commit plumbing.Hash) error {
	if _, err := repo.CommitObject(commit); err == nil {
		return nil
	}
	err := repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.opts.URL, Auth: auth,
		RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec("+" + commit.String() + ":" + pinnedRef)},
		Depth:    1, Force: true, Tags: git.NoTags})
	switch {
	case err == nil || errors.Is(err, git.NoErrAlreadyUpToDate):
		if _, err := repo.CommitObject(commit); err == nil {
			return nil
		}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrRepositoryNotFound):
		return err
	}
	// Refused (the capability is not advertised, or only branch tips may
	// be asked for): look for the commit in the branches' history.
	return s.deepenTo(ctx, repo, auth, commit)
}

// deepenTo fetches every branch and tag 200 commits deep, then twice as
// deep each time, then whole, until commit is in the cache. It stops
// early when the history fetched reaches its roots without commit.
func (s *GitSource) deepenTo(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, commit plumbing.Hash) error {
	specs := []gitconfig.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}
	for depth := ancestryDepth; ; depth *= 2 {
		if depth > maxAncestryDepth {
			depth = fullHistory
		}
		err := repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.opts.URL, Auth: auth,
			RefSpecs: specs, Depth: depth, Force: true, Tags: git.NoTags})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return fmt.Errorf("fetch history to find commit %s: %w", commit, err)
		}
		tips, err := fetchedTips(repo)
		if err != nil {
			return err
		}
		found, complete := walkParents(repo, commit, tips...)
		if found {
			return nil
		}
		if complete || depth == fullHistory {
			return fmt.Errorf("commit %s is in the history of no branch or tag of the remote: check source.commit or --ref", commit)
		}
	}
}

// fetchedTips returns the commits the cache's remote branches and tags
// point at, annotated tags peeled.
func fetchedTips(repo *git.Repository) ([]plumbing.Hash, error) {
	refs, err := repo.References()
	if err != nil {
		return nil, fmt.Errorf("list cache refs: %w", err)
	}
	var tips []plumbing.Hash
	err = refs.ForEach(func(r *plumbing.Reference) error {
		name := r.Name().String()
		if r.Type() != plumbing.HashReference ||
			!strings.HasPrefix(name, "refs/remotes/origin/") && !strings.HasPrefix(name, "refs/tags/") {
			return nil
		}
		h := r.Hash()
		if tag, err := repo.TagObject(h); err == nil {
			h = tag.Target
		}
		tips = append(tips, h)
		return nil
	})
	return tips, err
}
