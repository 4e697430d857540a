package sources

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

// gitKeys are the keys the git program signs with in these tests: one
// trusted and one unknown of each kind.
type gitKeys struct {
	pgp, otherPGP, ssh, otherSSH testgit.SigningKey
}

func newGitKeys(t *testing.T) gitKeys {
	t.Helper()
	return gitKeys{
		pgp:      testgit.NewPGPKey(t, "Release", "release@example.com"),
		otherPGP: testgit.NewPGPKey(t, "Mallory", "mallory@example.com"),
		ssh:      testgit.NewSSHKey(t, "dev@example.com"),
		otherSSH: testgit.NewSSHKey(t, "mallory@example.com"),
	}
}

// pgpKeyID is the 16-hex-digit key ID of a PGP fingerprint, as errors
// name the signer.
func pgpKeyID(k testgit.SigningKey) string { return "PGP key " + k.ID[len(k.ID)-16:] }

// TestVerifyGitSignedCommits verifies commits signed by the git program
// (gpg and ssh-keygen), in mode head.
func TestVerifyGitSignedCommits(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"app.yaml": "v: 0\n"})
	k := newGitKeys(t)
	dir := t.TempDir()
	pgpKeys := []string{testgit.WriteFile(t, dir, "release.asc", k.pgp.Public)}
	signers := func(name, line string) []string {
		return []string{testgit.WriteFile(t, dir, name, "# allowed signers\n"+line+"\n")}
	}
	cases := []struct {
		name    string
		key     *testgit.SigningKey
		verify  VerifyOptions
		wantErr []string
	}{
		{"PGP, trusted", &k.pgp, VerifyOptions{PGPKeyFiles: pgpKeys}, nil},
		// Every key file counts, and every armored block in one.
		{"PGP, the second key file's key", &k.pgp, VerifyOptions{PGPKeyFiles: []string{testgit.WriteFile(t, dir, "other.asc", k.otherPGP.Public), pgpKeys[0]}}, nil},
		{"PGP, the second block of one file", &k.pgp, VerifyOptions{PGPKeyFiles: []string{testgit.WriteFile(t, dir, "both.asc", k.otherPGP.Public+"\n"+k.pgp.Public)}}, nil},
		{"PGP, unknown key", &k.otherPGP, VerifyOptions{PGPKeyFiles: pgpKeys},
			[]string{"the PGP signature is not from a trusted key", "signed by " + pgpKeyID(k.otherPGP)}},
		{"PGP, only SSH keys configured", &k.pgp, VerifyOptions{SSHKeyFiles: signers("ssh-only", k.ssh.Public)},
			[]string{"no source.verify.pgpKeys are configured"}},
		{"SSH, trusted (authorized_keys form)", &k.ssh, VerifyOptions{SSHKeyFiles: signers("authorized", k.ssh.Public)}, nil},
		{"SSH, trusted (allowed-signers form)", &k.ssh, VerifyOptions{SSHKeyFiles: signers("allowed", "dev@example.com "+k.ssh.Public)}, nil},
		{"SSH, namespaces include git", &k.ssh, VerifyOptions{SSHKeyFiles: signers("ns-git", `dev@example.com namespaces="file,git" `+k.ssh.Public)}, nil},
		{"SSH, key allowed for another namespace only", &k.ssh, VerifyOptions{SSHKeyFiles: signers("ns-file", `dev@example.com namespaces="file" `+k.ssh.Public)},
			[]string{`allows the key for namespaces "file" only, not "git"`, "signed by dev@example.com SHA256:"}},
		{"SSH, key expired", &k.ssh, VerifyOptions{SSHKeyFiles: signers("expired", `dev@example.com valid-before="20200101Z" `+k.ssh.Public)},
			[]string{"makes the key valid before 2020-01-01T00:00:00Z only"}},
		{"SSH, key not valid yet", &k.ssh, VerifyOptions{SSHKeyFiles: signers("future", `dev@example.com valid-after="29990101" `+k.ssh.Public)},
			[]string{"makes the key valid after 2999-01-01"}},
		{"SSH, unknown key", &k.otherSSH, VerifyOptions{SSHKeyFiles: signers("other", "dev@example.com "+k.ssh.Public)},
			[]string{"the SSH key is not one of source.verify.sshKeys", "signed by SHA256:"}},
		{"unsigned", nil, VerifyOptions{PGPKeyFiles: pgpKeys, SSHKeyFiles: signers("unsigned", k.ssh.Public)},
			[]string{"it is not signed"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"app.yaml": fmt.Sprintf("v: %d\n", i+1)}
			var commit string
			var err error
			if tc.key == nil {
				commit, err = repo.Commit("main", tc.name, files)
			} else {
				commit, err = repo.CommitSigned("main", tc.name, files, *tc.key)
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.verify.Mode = "head"
			checkVerified(t, srv.RepoURL("config"), Ref{Branch: "main"}, &tc.verify, commit,
				tc.wantErr, "commit main@sha1:"+commit[:7])
		})
	}
}

// TestVerifyGitSignedTags verifies annotated tags signed by the git
// program, in mode tag: the tag's signature counts, not the commit's.
func TestVerifyGitSignedTags(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	commit := repo.MustCommit(t, "main", "first", map[string]string{"app.yaml": "v: 0\n"})
	k := newGitKeys(t)
	dir := t.TempDir()
	verify := &VerifyOptions{Mode: "tag", PGPKeyFiles: []string{testgit.WriteFile(t, dir, "release.asc", k.pgp.Public)},
		SSHKeyFiles: []string{testgit.WriteFile(t, dir, "allowed", "dev@example.com "+k.ssh.Public+"\n")}}
	tags := []struct {
		tag string
		key *testgit.SigningKey
	}{{"v1.0.0", &k.pgp}, {"v1.1.0", &k.ssh}, {"v1.2.0", &k.otherPGP}, {"v1.3.0", &k.otherSSH}, {"v1.4.0", nil}}
	for _, tg := range tags {
		var err error
		if tg.key == nil {
			err = repo.Tag(tg.tag, commit)
		} else {
			err = repo.TagSigned(tg.tag, commit, *tg.key)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := repo.SetRef("refs/tags/v1.5.0", commit); err != nil { // lightweight
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		ref     Ref
		wantErr []string
	}{
		{"PGP-signed tag", Ref{Tag: "v1.0.0"}, nil},
		{"SSH-signed tag", Ref{Tag: "v1.1.0"}, nil},
		{"semver range, SSH-signed highest match", Ref{Semver: ">=1.0.0 <1.2.0"}, nil},
		// Higher tags in range that do not verify are passed over: one
		// unsigned tag pushed in range does not freeze the source.
		{"semver range, the highest tag that verifies", Ref{Semver: ">=1.0.0"}, nil},
		{"tag signed by an unknown PGP key", Ref{Tag: "v1.2.0"}, []string{"not from a trusted key", "signed by " + pgpKeyID(k.otherPGP)}},
		{"tag signed by an unknown SSH key", Ref{Tag: "v1.3.0"}, []string{"the SSH key is not one of source.verify.sshKeys"}},
		{"unsigned annotated tag", Ref{Tag: "v1.4.0"}, []string{"it is not signed"}},
		{"lightweight tag", Ref{Tag: "v1.5.0"}, []string{"it is a lightweight tag"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tag := tc.ref.Tag
			if tag == "" {
				tag = "v1.1.0"
			}
			checkVerified(t, srv.RepoURL("config"), tc.ref, verify, commit, tc.wantErr, "tag "+tag)
		})
	}
}

// checkVerified fetches ref with verify and checks that commit is handed
// on, or, with wantErr, refused with a VerificationError that names
// object and contains wantErr.
func checkVerified(t *testing.T, url string, ref Ref, verify *VerifyOptions, commit string, wantErr []string, object string) {
	t.Helper()
	src, err := NewGitSource(Options{URL: url, Ref: ref, CacheDir: t.TempDir(), Verify: verify})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Fetch(context.Background())
	if wantErr == nil {
		if err != nil || snap.Revision.Commit != commit {
			t.Fatalf("a revision signed by a trusted key: %v %v", snap.Revision, err)
		}
		if ref.Semver == ">=1.0.0" {
			// v1.5.0 down to v1.2.0 do not verify; v1.1.0 does.
			if snap.Revision.Ref != "v1.1.0" || len(snap.Refused) != 4 || !strings.Contains(snap.Refused[0], "tag v1.5.0 is not trusted") {
				t.Errorf("semver >=1.0.0: revision %s, refused %q; want v1.1.0 after four refusals, v1.5.0 first", snap.Revision.Ref, snap.Refused)
			}
		}
		return
	}
	var ve *VerificationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v, want a VerificationError", err)
	}
	for _, want := range append(wantErr, object+" is not trusted", "it is never applied") {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if snap.Dir != "" {
		t.Error("an untrusted revision was handed on")
	}
}

// TestIdlePollVerifiesAgain removes the signer's key from the key file
// between two polls of the same commit: the idle poll, which fetches
// nothing, refuses the commit.
func TestIdlePollVerifiesAgain(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	k := testgit.NewSSHKey(t, "dev@example.com")
	other := testgit.NewSSHKey(t, "ops@example.com")
	commit, err := repo.CommitSigned("main", "signed", map[string]string{"a.yaml": "a: 1\n"}, k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keys := testgit.WriteFile(t, dir, "allowed", "dev@example.com "+k.Public+"\n")
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(),
		Verify: &VerifyOptions{Mode: "head", SSHKeyFiles: []string{keys}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if snap, err := src.Fetch(ctx); err != nil || snap.Revision.Commit != commit {
		t.Fatalf("first poll: %v %v", snap.Revision, err)
	}
	testgit.WriteFile(t, dir, "allowed", "ops@example.com "+other.Public+"\n")
	srv.ResetCounts()
	_, err = src.Fetch(ctx)
	var ve *VerificationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "not one of source.verify.sshKeys") {
		t.Errorf("idle poll after the key was removed: %v, want a VerificationError", err)
	}
	if got := srv.Counts("config"); got[testgit.UploadPack] != 0 {
		t.Errorf("idle poll requests = %v, want no upload-pack", got)
	}
}
