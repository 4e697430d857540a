package sources

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

// TestBearerToken fetches from a server that takes only a bearer token,
// from source.auth.tokenFile and tokenEnv, and
// checks that a wrong token is an AuthError naming where it came from.
func TestBearerToken(t *testing.T) {
	const token = "tok-s3cret-value"
	srv, repo := testgit.Fixture(t, testgit.Options{Token: token})
	commit := repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	dir := t.TempDir()
	good, wrong := testgit.WriteFile(t, dir, "token", token+"\n"), testgit.WriteFile(t, dir, "wrong", "tok-wrong-value\n")
	t.Setenv("ROLEOUT_TEST_TOKEN", token)
	t.Setenv("ROLEOUT_TEST_WRONG_TOKEN", "tok-wrong-value")
	cases := []struct {
		name    string
		auth    Credentials
		wantErr []string
	}{
		{"token file", Credentials{TokenFile: good}, nil},
		{"token from the environment", Credentials{TokenEnv: "ROLEOUT_TEST_TOKEN"}, nil},
		{"wrong token file", Credentials{TokenFile: wrong},
			[]string{"authentication failed with the bearer token in source.auth.tokenFile " + wrong, "correct it"}},
		{"wrong token in the environment", Credentials{TokenEnv: "ROLEOUT_TEST_WRONG_TOKEN"},
			[]string{"authentication failed with the bearer token in source.auth.tokenEnv $ROLEOUT_TEST_WRONG_TOKEN"}},
		{"no credentials", Credentials{},
			[]string{"authentication failed with no credentials", "set source.auth.usernameFile and passwordFile, or tokenFile"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(), Auth: tc.auth})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := src.Fetch(context.Background())
			if tc.wantErr == nil {
				if err != nil || snap.Revision.Commit != commit {
					t.Fatalf("fetch with a bearer token: %v %v", snap.Revision, err)
				}
				return
			}
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v, want an AuthError", err)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "tok-") {
				t.Errorf("error shows a token: %q", err)
			}
		})
	}
}

// TestCredentialsReread polls with a wrong password file, which fails
// with an error naming the file, corrects the file and polls again with
// the same source: no restart.
func TestCredentialsReread(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{Username: "git", Password: "right-s3cret"})
	commit := repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	dir := t.TempDir()
	user, pass := testgit.WriteFile(t, dir, "user", "git\n"), testgit.WriteFile(t, dir, "pass", "wrong-s3cret\n")
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(),
		Auth: Credentials{UsernameFile: user, PasswordFile: pass}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = src.Fetch(ctx)
	var ae *AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("poll with a wrong password: %v, want an AuthError", err)
	}
	want := "authentication failed with the user name in source.auth.usernameFile " + user +
		" and the password in source.auth.passwordFile " + pass + ": correct it; it is read again at the next poll"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q\nwant it to contain %q and no password", err, want)
	}
	testgit.WriteFile(t, dir, "pass", "right-s3cret\n")
	snap, err := src.Fetch(ctx)
	if err != nil || snap.Revision.Commit != commit {
		t.Fatalf("poll after the password file was corrected: %v %v", snap.Revision, err)
	}
	testgit.WriteFile(t, dir, "pass", "wrong-again\n")
	if _, err := src.Head(ctx); !errors.As(err, &ae) {
		t.Errorf("a later poll with the password broken again: %v, want an AuthError", err)
	}
}
