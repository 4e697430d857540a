package sources

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// objectRepo is an in-memory repository whose objects a test writes one
// by one, as no honest server would serve them.
type objectRepo struct {
	t    *testing.T
	repo *git.Repository
}

func newObjectRepo(t *testing.T) objectRepo {
	t.Helper()
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return objectRepo{t: t, repo: repo}
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func (r objectRepo) store(o encoder) plumbing.Hash {
	r.t.Helper()
	obj := r.repo.Storer.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		r.t.Fatal(err)
	}
	h, err := r.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

var fixtureSig = object.Signature{Name: "dev", Email: "dev@example.com", When: time.Unix(1700000000, 0).UTC()}

// commit stores a commit of an empty tree with message msg.
func (r objectRepo) commit(msg string) plumbing.Hash {
	tree := r.store(&object.Tree{})
	return r.store(&object.Commit{Author: fixtureSig, Committer: fixtureSig, Message: msg, TreeHash: tree})
}

// tag stores an annotated tag name at target, an object of type typ.
func (r objectRepo) tag(name string, target plumbing.Hash, typ plumbing.ObjectType) plumbing.Hash {
	return r.store(&object.Tag{Name: name, Tagger: fixtureSig, Message: "tag " + name + "\n", TargetType: typ, Target: target})
}

// TestBindTag unit-tests the binding of an advertised tag object to the
// commit the remote advertises, on objects written locally with go-git:
// the peeled commit a malicious server claims is only simulated here (see
// TestLyingServer for it over HTTP).
func TestBindTag(t *testing.T) {
	r := newObjectRepo(t)
	a, b := r.commit("a"), r.commit("b")
	onA := r.tag("v1", a, plumbing.CommitObject)
	inner := r.tag("v2-rc", b, plumbing.CommitObject)
	chain := r.tag("v2", inner, plumbing.TagObject)
	// chainOf stores n tags, each of the next, the last on b; the first is
	// named name.
	chainOf := func(name string, n int) plumbing.Hash {
		h, typ := b, plumbing.CommitObject
		for i := range n - 1 {
			h, typ = r.tag(fmt.Sprint(name, "-", i), h, typ), plumbing.TagObject
		}
		return r.tag(name, h, typ)
	}
	tree := r.store(&object.Tree{})
	cases := []struct {
		name    string
		tag     string
		object  plumbing.Hash
		commit  plumbing.Hash
		wantErr string
	}{
		{"annotated tag on the advertised commit", "v1", onA, a, ""},
		{"annotated tag on another commit", "v1", onA, b,
			"the tag points at commit " + a.String() + ", another commit than the remote advertised (" + b.String() + ")"},
		{"tag of a tag on the advertised commit", "v2", chain, b, ""},
		{"tag of a tag on another commit", "v2", chain, a, "the tag points at commit " + b.String()},
		{"chain as long as the bound", "v3", chainOf("v3", maxTagChain), b, ""},
		{"chain longer than the bound", "v4", chainOf("v4", maxTagChain+1), b, fmt.Sprintf("it is a chain of more than %d tags", maxTagChain)},
		{"lightweight tag", "v1", a, a, "it is a lightweight tag"},
		{"tag object of another tag's name", "v9", onA, a, `the remote advertises the tag object of tag "v1" under its name`},
		{"tag object not in the cache", "v1", plumbing.NewHash(strings.Repeat("ab", 20)), a, "is not in the cache"},
		{"tag of a tree", "vt", r.tag("vt", tree, plumbing.TreeObject), a, "it points at a tree, not a commit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bindTag(r.repo, tc.tag, tc.object, tc.commit)
			if tc.wantErr == "" {
				if err != nil || got == nil || got.Hash != tc.object {
					t.Fatalf("bindTag = %v, %v; want tag object %s", got, err, tc.object)
				}
				return
			}
			var ve *VerificationError
			if !errors.As(err, &ve) || got != nil {
				t.Fatalf("bindTag = %v, %v; want a VerificationError", got, err)
			}
			if ve.Object != "tag "+tc.tag || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q (object %q), want %q about tag %s", err, ve.Object, tc.wantErr, tc.tag)
			}
		})
	}
}
