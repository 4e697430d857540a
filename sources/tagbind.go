package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// maxTagChain bounds how many tags of a tag-of-tag chain bindTag follows
// to reach the commit.
const maxTagChain = 8

// tagMode reports whether the source verifies the signature of the tag
// it follows rather than the commit's.
func (s *GitSource) tagMode() bool { return s.opts.Verify != nil && s.opts.Verify.Mode == "tag" }

// verify checks, when source.verify is set, that tgt may be handed on;
// in tag mode it first brings the advertised tag object into the cache.
func (s *GitSource) verify(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, tgt target) error {
	if s.opts.Verify == nil {
		return nil
	}
	if s.tagMode() {
		if err := s.fetchTag(ctx, repo, auth, tgt); err != nil {
			return err
		}
	}
	return s.verifyRevision(repo, tgt)
}

// fetchTag fetches the followed tag's ref at depth 1 unless the cache
// holds both the tag object the remote advertised (tgt.tag) and the
// commit it is said to peel to, whether or not that commit is checked
// out already: the cache's own refs/tags are never what is verified.
// A tag that moved between the listing and the fetch is an error; the
// next poll resolves it again.
func (s *GitSource) fetchTag(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, tgt target) error {
	if tgt.tag.IsZero() {
		return nil
	}
	has := func(h plumbing.Hash) bool { return repo.Storer.HasEncodedObject(h) == nil }
	if has(tgt.tag) && has(plumbing.NewHash(tgt.rev.Commit)) {
		return nil
	}
	err := repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.opts.URL, Auth: auth,
		RefSpecs: []gitconfig.RefSpec{tgt.refspec}, Depth: 1, Force: true, Tags: git.NoTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("fetch tag %s: %w", tgt.rev.Ref, err)
	}
	if !has(tgt.tag) {
		return fmt.Errorf("fetch tag %s: object %s the remote advertised for it did not arrive: the tag moved while it was fetched",
			tgt.rev.Ref, tgt.tag)
	}
	return nil
}

// bindTag returns the annotated tag object tagHash, which the remote
// advertises as refs/tags/<name>, after checking that it is a tag named
// name and that it peels (through at most maxTagChain tags) to exactly
// commit, the commit that is checked out and handed on. Every refusal is
// a *VerificationError. The caller checks the returned tag's signature.
func bindTag(repo *git.Repository, name string, tagHash, commit plumbing.Hash) (*object.Tag, error) {
	what := "tag " + name
	obj, err := repo.Storer.EncodedObject(plumbing.AnyObject, tagHash)
	if err != nil {
		return nil, &VerificationError{Object: what, Reason: fmt.Sprintf("its tag object %s is not in the cache: %v", tagHash, err)}
	}
	if obj.Type() != plumbing.TagObject {
		return nil, &VerificationError{Object: what, Reason: "it is a lightweight tag; only an annotated tag carries a signature"}
	}
	tag, err := object.DecodeTag(repo.Storer, obj)
	if err != nil {
		return nil, &VerificationError{Object: what, Reason: fmt.Sprintf("its tag object %s does not parse: %v", tagHash, err)}
	}
	if tag.Name != name {
		return nil, &VerificationError{Object: what,
			Reason: fmt.Sprintf("the remote advertises the tag object of tag %q under its name", tag.Name)}
	}
	t := tag
	for depth := 1; t.TargetType == plumbing.TagObject; depth++ {
		if depth >= maxTagChain {
			return nil, &VerificationError{Object: what, Reason: fmt.Sprintf("it is a chain of more than %d tags", maxTagChain)}
		}
		next, err := repo.TagObject(t.Target)
		if err != nil {
			return nil, &VerificationError{Object: what, Reason: fmt.Sprintf("tag object %s it points at is not in the cache: %v", t.Target, err)}
		}
		t = next
	}
	if t.TargetType != plumbing.CommitObject {
		return nil, &VerificationError{Object: what, Reason: fmt.Sprintf("it points at a %s, not a commit", t.TargetType)}
	}
	if t.Target != commit {
		return nil, &VerificationError{Object: what, Reason: fmt.Sprintf(
			"the tag points at commit %s, another commit than the remote advertised (%s)", t.Target, commit)}
	}
	return tag, nil
}
