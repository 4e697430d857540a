package sources

import (
	"context"
	"fmt"
	"path"
	"sort"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Head is one ref of the remote and the commit it points at.
type Head struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Untrusted, when set, says why the head may be previewed but never
	// applied (its signature was refused).
	Untrusted string `json:"untrusted,omitempty"`
}

// ListRefs lists the remote's refs (one request, no objects) and returns
// those matching any of globs (path.Match patterns such as
// refs/pull/*/head or refs/heads/pr/*), sorted by ref.
func (s *GitSource) ListRefs(ctx context.Context, globs []string) ([]Head, error) {
	auth, err := authFor(s.opts.URL, s.opts.Auth)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.URL(), err)
	}
	repo, err := s.open()
	if err != nil {
		return nil, err
	}
	remote, err := repo.Remote("origin")
	if err != nil {
		return nil, err
	}
	refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.URL(), s.explain(err))
	}
	var out []Head
	for _, r := range refs {
		if r.Type() != plumbing.HashReference {
			continue
		}
		name := r.Name().String()
		for _, g := range globs {
			if ok, _ := path.Match(g, name); ok {
				out = append(out, Head{Ref: name, Commit: r.Hash().String()})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out, nil
}

// ForRef returns a source for the same repository that follows ref (a
// full ref name) instead, in the untrusted domain: its bare repository
// and checkouts are its own, never the followed ref's, and its snapshots
// say Untrusted.
func (s *GitSource) ForRef(ref string) *GitSource {
	o := s.opts
	o.Ref = Ref{Name: ref}
	// Pull-request heads are previewed, never applied: they need no
	// signature.
	o.Verify = nil
	c := *s
	c.opts = o
	c.last = Snapshot{}
	c.setTrust(Untrusted)
	return &c
}
