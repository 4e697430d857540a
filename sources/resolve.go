package sources

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// target is where resolve found the followed ref on the remote.
type target struct {
	rev SourceRevision
	// refspec fetches rev.Commit; empty for a pinned commit, which no ref
	// names.
	refspec gitconfig.RefSpec
	// tag is the object the remote advertises as refs/tags/<rev.Ref>
	// (not the peeled refs/tags/<rev.Ref>^{}) when the followed ref is a
	// tag: an annotated tag's object, or a lightweight tag's commit. Zero
	// for other refs. Tag verification binds this object to rev.Commit.
	tag plumbing.Hash
	// lower are, in a semver range, the next highest tags in range
	// (at most maxSemverFallbacks), tried in order when this one's
	// signature does not verify.
	lower []target
}

// maxSemverFallbacks bounds the tags tried below the highest in a semver
// range: each costs a fetch.
const maxSemverFallbacks = 10

// resolve lists the remote's refs (one request, no object transfer) and
// returns the revision the followed ref points at and the refspec that
// fetches it. A pinned commit needs no listing and gets an empty refspec.
func (s *GitSource) resolve(ctx context.Context, repo *git.Repository, auth transport.AuthMethod) (target, error) {
	ref := s.opts.Ref
	if ref.Commit != "" {
		return target{rev: SourceRevision{Commit: ref.Commit}}, nil
	}
	remote, err := repo.Remote("origin")
	if err != nil {
		return target{}, err
	}
	refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return target{}, fmt.Errorf("list remote refs: %w", err)
	}
	byName := make(map[string]plumbing.Hash, len(refs))
	for _, r := range refs {
		if r.Type() == plumbing.HashReference {
			byName[r.Name().String()] = r.Hash()
		}
	}
	switch {
	case ref.Branch != "":
		h, ok := byName["refs/heads/"+ref.Branch]
		if !ok {
			return target{}, fmt.Errorf("branch %q not found on the remote: check source.branch", ref.Branch)
		}
		spec := gitconfig.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", ref.Branch, ref.Branch))
		return target{rev: SourceRevision{Ref: ref.Branch, Commit: h.String()}, refspec: spec}, nil
	case ref.Tag != "":
		return tagRevision(byName, ref.Tag)
	case ref.Name != "":
		return namedRevision(byName, ref.Name)
	case ref.Semver != "":
		tags, err := tagsInRange(byName, ref.Semver)
		if err != nil {
			return target{}, err
		}
		tgt, err := tagRevision(byName, tags[0])
		for _, tag := range tags[1:min(len(tags), maxSemverFallbacks+1)] {
			if t, err := tagRevision(byName, tag); err == nil && s.opts.Verify != nil {
				tgt.lower = append(tgt.lower, t)
			}
		}
		return tgt, err
	}
	return target{}, fmt.Errorf("no ref to follow: set a branch, tag, semver range or commit")
}

// namedRevision resolves a name as a branch, then a tag, then a full
// ref name.
func namedRevision(byName map[string]plumbing.Hash, name string) (target, error) {
	if h, ok := byName["refs/heads/"+name]; ok {
		spec := gitconfig.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", name, name))
		return target{rev: SourceRevision{Ref: name, Commit: h.String()}, refspec: spec}, nil
	}
	if _, ok := byName["refs/tags/"+name]; ok {
		return tagRevision(byName, name)
	}
	if h, ok := byName[name]; ok && strings.HasPrefix(name, "refs/") {
		return target{rev: SourceRevision{Ref: name, Commit: h.String()}, refspec: gitconfig.RefSpec("+" + name + ":" + name)}, nil
	}
	return target{}, fmt.Errorf("ref %q not found on the remote as a branch, a tag or a full ref name", name)
}

// tagRevision returns the commit tag points at as the remote advertises
// it (the peeled refs/tags/<tag>^{} of an annotated tag) and the object
// refs/tags/<tag> itself names. Nothing here trusts the remote's peeling:
// verification checks that the tag object peels to that commit.
func tagRevision(byName map[string]plumbing.Hash, tag string) (target, error) {
	name := "refs/tags/" + tag
	obj, ok := byName[name]
	if !ok {
		return target{}, fmt.Errorf("tag %q not found on the remote: check source.tag", tag)
	}
	commit, ok := byName[name+"^{}"]
	if !ok {
		commit = obj
	}
	return target{rev: SourceRevision{Ref: tag, Commit: commit.String()}, refspec: gitconfig.RefSpec("+" + name + ":" + name), tag: obj}, nil
}

// tagsInRange returns the tags that are semantic versions within
// rangeExpr, highest first.
func tagsInRange(byName map[string]plumbing.Hash, rangeExpr string) ([]string, error) {
	c, err := semver.NewConstraint(rangeExpr)
	if err != nil {
		return nil, fmt.Errorf("invalid semver range %q: %w", rangeExpr, err)
	}
	type version struct {
		v   *semver.Version
		tag string
	}
	var in []version
	for name := range byName {
		tag, ok := strings.CutPrefix(name, "refs/tags/")
		if !ok || strings.HasSuffix(tag, "^{}") {
			continue
		}
		v, err := semver.NewVersion(tag)
		if err != nil || !c.Check(v) {
			continue
		}
		in = append(in, version{v, tag})
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("no tag on the remote matches semver range %q", rangeExpr)
	}
	sort.Slice(in, func(i, j int) bool {
		if !in[i].v.Equal(in[j].v) {
			return in[i].v.GreaterThan(in[j].v)
		}
		return in[i].tag < in[j].tag
	})
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = v.tag
	}
	return out, nil
}
