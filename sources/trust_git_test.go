package sources

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/roleout/roleout/internal/testgit"
)

// tagVerify returns an SSH key and the tag-mode verification that trusts
// it alone.
func tagVerify(t *testing.T) (testgit.SigningKey, *VerifyOptions) {
	t.Helper()
	k := testgit.NewSSHKey(t, "release@example.com")
	keys := testgit.WriteFile(t, t.TempDir(), "allowed", "release@example.com "+k.Public+"\n")
	return k, &VerifyOptions{Mode: "tag", SSHKeyFiles: []string{keys}}
}

// retag points tag name at commit on the server, replacing it as
// `git tag -f` would: a lightweight tag when annotated is false, else an
// annotated tag signed by key (unsigned when key is nil).
func retag(t *testing.T, repo *testgit.Repo, name, commit string, annotated bool, key *testgit.SigningKey) {
	t.Helper()
	_ = repo.DeleteRef("refs/tags/" + name)
	var err error
	switch {
	case !annotated:
		err = repo.SetRef("refs/tags/"+name, commit)
	case key == nil:
		err = repo.Tag(name, commit)
	default:
		err = repo.TagSigned(name, commit, *key)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func newTestSource(t *testing.T, url string, ref Ref, verify *VerifyOptions) *GitSource {
	t.Helper()
	src, err := NewGitSource(Options{URL: url, Ref: ref, CacheDir: t.TempDir(), Verify: verify})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// mustFetch fetches src and checks that commit is handed on in domain
// trust.
func mustFetch(t *testing.T, src *GitSource, commit string, trust Trust) Snapshot {
	t.Helper()
	snap, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if snap.Revision.Commit != commit || snap.Trust != trust {
		t.Fatalf("fetch = %s (%s), want commit %s (%s)", snap.Revision, snap.Trust, commit, trust)
	}
	return snap
}

// wantRefused checks that a fetch was refused with a VerificationError
// containing every one of want, and that commit was neither handed on
// nor checked out in src's cache.
func wantRefused(t *testing.T, src *GitSource, snap Snapshot, err error, commit string, want ...string) {
	t.Helper()
	var ve *VerificationError
	if !errors.As(err, &ve) {
		t.Fatalf("fetch = %v, %v; want a VerificationError", snap.Revision, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if snap.Dir != "" || snap.Revision.Commit != "" {
		t.Errorf("a refused revision was handed on: %+v", snap)
	}
	if _, err := os.Stat(filepath.Join(src.treesDir, commit)); !os.IsNotExist(err) {
		t.Errorf("refused commit %s is checked out in the trusted cache: %v", commit, err)
	}
}

// TestMovedTagAfterPullRequest is the attack of the issue: a signed tag
// on A is applied, a pull request's unsigned commit B is fetched for a
// preview, and then the tag is moved to B on the server. The tag source
// refuses B however the tag was moved.
func TestMovedTagAfterPullRequest(t *testing.T) {
	cases := []struct {
		name      string
		annotated bool
		other     bool // signed by a key that is not trusted
		want      string
	}{
		{"lightweight", false, false, "it is a lightweight tag"},
		{"annotated, unsigned", true, false, "it is not signed"},
		{"annotated, signed by an unknown key", true, true, "the SSH key is not one of source.verify.sshKeys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, repo := testgit.Fixture(t, testgit.Options{})
			k, verify := tagVerify(t)
			a := repo.MustCommit(t, "main", "release", map[string]string{"app.yaml": "v: 1\n"})
			retag(t, repo, "v1", a, true, &k)
			b := repo.MustCommit(t, "pr/evil", "evil", map[string]string{"app.yaml": "v: evil\n"})
			if err := repo.PullRequest(9, b); err != nil {
				t.Fatal(err)
			}
			src := newTestSource(t, srv.RepoURL("config"), Ref{Tag: "v1"}, verify)
			mustFetch(t, src, a, Trusted)
			pr := src.ForRef("refs/pull/9/head")
			mustFetch(t, pr, b, Untrusted)

			var key *testgit.SigningKey
			if tc.other {
				other := testgit.NewSSHKey(t, "mallory@example.com")
				key = &other
			}
			retag(t, repo, "v1", b, tc.annotated, key)
			snap, err := src.Fetch(context.Background())
			wantRefused(t, src, snap, err, b, "tag v1 is not trusted", tc.want)
			// And again: a refusal leaves nothing behind that a later poll
			// would take for verified.
			snap, err = src.Fetch(context.Background())
			wantRefused(t, src, snap, err, b, tc.want)
		})
	}
}

// TestStaleLocalTag moves a tag back to a commit whose checkout the
// trusted cache still holds, with an unsigned tag: the cache's own
// refs/tags/v1 (a signed tag object) must not stand in for the tag the
// remote advertises.
func TestStaleLocalTag(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	k, verify := tagVerify(t)
	a := repo.MustCommit(t, "main", "one", map[string]string{"app.yaml": "v: 1\n"})
	b := repo.MustCommit(t, "main", "two", map[string]string{"app.yaml": "v: 2\n"})
	src := newTestSource(t, srv.RepoURL("config"), Ref{Tag: "v1"}, verify)
	retag(t, repo, "v1", a, true, &k)
	mustFetch(t, src, a, Trusted)
	retag(t, repo, "v1", b, true, &k)
	mustFetch(t, src, b, Trusted)
	retag(t, repo, "v1", a, true, nil) // A is checked out already
	snap, err := src.Fetch(context.Background())
	var ve *VerificationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "it is not signed") || snap.Dir != "" {
		t.Fatalf("an unsigned tag moved back to a checked-out commit: %v %v; want it refused as not signed", snap.Revision, err)
	}
}

// TestTagRetaggedLegitimately moves a signed tag to a new signed tag on a
// new commit, then re-signs it on the same commit: both are accepted, and
// an idle poll between them transfers nothing. An unsigned tag re-made on
// that same commit is refused at the next poll, though the commit is the
// one already handed on.
func TestTagRetaggedLegitimately(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	k, verify := tagVerify(t)
	a := repo.MustCommit(t, "main", "one", map[string]string{"app.yaml": "v: 1\n"})
	src := newTestSource(t, srv.RepoURL("config"), Ref{Tag: "v1"}, verify)
	retag(t, repo, "v1", a, true, &k)
	mustFetch(t, src, a, Trusted)

	b, err := repo.CommitSigned("main", "two", map[string]string{"app.yaml": "v: 2\n"}, k)
	if err != nil {
		t.Fatal(err)
	}
	retag(t, repo, "v1", b, true, &k)
	snap := mustFetch(t, src, b, Trusted)
	if got, _ := os.ReadFile(filepath.Join(snap.Dir, "app.yaml")); string(got) != "v: 2\n" {
		t.Errorf("app.yaml after the tag moved = %q, want v: 2", got)
	}

	srv.ResetCounts()
	mustFetch(t, src, b, Trusted)
	if got := srv.Count("config", testgit.UploadPack); got != 0 {
		t.Errorf("idle poll in tag mode: %d upload-packs, want none", got)
	}

	retag(t, repo, "v1", b, true, &k) // a new tag object on the same commit
	if again := mustFetch(t, src, b, Trusted); again.Dir != snap.Dir {
		t.Errorf("re-signed tag on the same commit: dir %s, want %s", again.Dir, snap.Dir)
	}
	retag(t, repo, "v1", b, true, nil)
	_, err = src.Fetch(context.Background())
	var ve *VerificationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "it is not signed") {
		t.Errorf("unsigned tag re-made on the same commit: %v, want it refused as not signed", err)
	}
}

// TestTrustDomainsSeparate fetches one commit both as a pull-request head
// and as the followed branch, in either order: each source has its own
// bare repository and checkouts, the trusted one fetches the commit into
// its own cache, and a file written into the untrusted checkout never
// shows in the trusted one.
func TestTrustDomainsSeparate(t *testing.T) {
	for _, prFirst := range []bool{true, false} {
		t.Run("pull request first "+strconv.FormatBool(prFirst), func(t *testing.T) {
			srv, repo := testgit.Fixture(t, testgit.Options{})
			c := repo.MustCommit(t, "main", "one", map[string]string{"app.yaml": "v: 1\n"})
			if err := repo.PullRequest(5, c); err != nil {
				t.Fatal(err)
			}
			src := newTestSource(t, srv.RepoURL("config"), Ref{Branch: "main"}, nil)
			pr := src.ForRef("refs/pull/5/head")
			first, second, firstTrust, secondTrust := pr, src, Untrusted, Trusted
			if !prFirst {
				first, second, firstTrust, secondTrust = src, pr, Trusted, Untrusted
			}
			one := mustFetch(t, first, c, firstTrust)
			if err := os.WriteFile(filepath.Join(one.Dir, "planted.yaml"), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv.ResetCounts()
			two := mustFetch(t, second, c, secondTrust)
			if got := srv.Count("config", testgit.UploadPack); got != 1 {
				t.Errorf("second domain's fetch of the same commit: %d upload-packs, want 1 (its own cache)", got)
			}
			if _, err := os.Stat(filepath.Join(two.Dir, "planted.yaml")); !os.IsNotExist(err) {
				t.Errorf("a file written into the other domain's checkout shows in this one: %v", err)
			}
			for _, p := range [][2]string{{pr.repoDir, src.repoDir}, {pr.treesDir, src.treesDir}, {one.Dir, two.Dir}} {
				if within(p[0], p[1]) || within(p[1], p[0]) {
					t.Errorf("%s and %s share a directory", p[0], p[1])
				}
			}
			for _, s := range []*GitSource{src, pr} {
				r, err := git.PlainOpen(s.repoDir)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.CommitObject(plumbing.NewHash(c)); err != nil {
					t.Errorf("%s cache lacks the commit it fetched: %v", s.trust, err)
				}
			}
			// The idle poll keeps the domain.
			mustFetch(t, src, c, Trusted)
			mustFetch(t, pr, c, Untrusted)
		})
	}
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// TestLyingServer puts a proxy in front of the git server that, once
// lying, advertises refs/tags/v1^{} as commit B while refs/tags/v1 is
// still the signed tag object of commit A: the tag's signature verifies,
// but it does not bind B, which is refused and not checked out, whether
// or not the trusted cache held B's checkout already.
func TestLyingServer(t *testing.T) {
	for _, bCheckedOut := range []bool{false, true} {
		t.Run("B checked out before "+strconv.FormatBool(bCheckedOut), func(t *testing.T) {
			srv, repo := testgit.Fixture(t, testgit.Options{})
			k, verify := tagVerify(t)
			a := repo.MustCommit(t, "main", "one", map[string]string{"app.yaml": "v: 1\n"})
			b := repo.MustCommit(t, "main", "two", map[string]string{"app.yaml": "v: 2\n"})
			proxy := &lyingProxy{target: srv.URL, line: " refs/tags/v1^{}", from: a, to: b}
			front := httptest.NewServer(proxy)
			t.Cleanup(front.Close)
			src := newTestSource(t, front.URL+"/config.git", Ref{Tag: "v1"}, verify)
			if bCheckedOut {
				retag(t, repo, "v1", b, true, &k)
				mustFetch(t, src, b, Trusted)
			}
			retag(t, repo, "v1", a, true, &k)
			mustFetch(t, src, a, Trusted)
			proxy.lying.Store(true)
			snap, err := src.Fetch(context.Background())
			var ve *VerificationError
			if !errors.As(err, &ve) || snap.Dir != "" {
				t.Fatalf("fetch through the lying server = %v, %v; want a VerificationError", snap.Revision, err)
			}
			want := "the tag points at commit " + a + ", another commit than the remote advertised (" + b + ")"
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
			if !bCheckedOut {
				if _, err := os.Stat(filepath.Join(src.treesDir, b)); !os.IsNotExist(err) {
					t.Errorf("commit B is checked out: %v", err)
				}
			}
			if proxy.lies.Load() == 0 {
				t.Error("the proxy told no lie: the test proves nothing")
			}
		})
	}
}

// lyingProxy forwards to a git server and, once lying is set, rewrites
// the ref advertisement line ending in line from commit from to commit
// to. Hashes have one length, so the pkt-line framing stays valid.
type lyingProxy struct {
	target   string
	line     string
	from, to string
	lying    atomic.Bool
	lies     atomic.Int64 // advertisements rewritten
}

func (p *lyingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u, _ := url.Parse(p.target)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if !p.lying.Load() || !strings.HasSuffix(resp.Request.URL.Path, "/info/refs") {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		old, lie := []byte(p.from+p.line), []byte(p.to+p.line)
		if bytes.Contains(body, old) {
			body = bytes.ReplaceAll(body, old, lie)
			p.lies.Add(1)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	rp.ServeHTTP(w, r)
}
