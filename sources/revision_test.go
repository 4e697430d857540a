package sources

import (
	"errors"
	"strings"
	"testing"
)

func TestRevision(t *testing.T) {
	full := strings.Repeat("1a2b3c4d", 5)
	cases := []struct {
		rev        SourceRevision
		str, short string
	}{
		{SourceRevision{Ref: "main", Commit: full}, "main@sha1:" + full, "main@sha1:1a2b3c4"},
		{SourceRevision{Ref: "v1.2.0", Commit: full}, "v1.2.0@sha1:" + full, "v1.2.0@sha1:1a2b3c4"},
		{SourceRevision{Commit: full}, "sha1:" + full, "sha1:1a2b3c4"},
	}
	for _, tc := range cases {
		if got := tc.rev.String(); got != tc.str {
			t.Errorf("String() = %q, want %q", got, tc.str)
		}
		if got := tc.rev.Short(); got != tc.short {
			t.Errorf("Short() = %q, want %q", got, tc.short)
		}
		back, err := ParseRevision(tc.str)
		if err != nil || back != tc.rev {
			t.Errorf("ParseRevision(%q) = %+v, %v", tc.str, back, err)
		}
	}
	for _, bad := range []string{"", "main", "main@sha1:", "md5:abc"} {
		if _, err := ParseRevision(bad); err == nil {
			t.Errorf("ParseRevision(%q) accepted", bad)
		}
	}
}

func TestRedactURL(t *testing.T) {
	cases := map[string]string{
		"https://user:s3cret@git.example/org/repo.git": "https://user:redacted@git.example/org/repo.git",
		"https://git.example/org/repo.git":             "https://git.example/org/repo.git",
		"https://ghp_token@git.example/repo.git":       "https://redacted@git.example/repo.git",
		"ssh://git@git.example/repo.git":               "ssh://git@git.example/repo.git",
	}
	for in, want := range cases {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	raw := "https://user:s3cret@git.example/repo.git"
	base := errors.New(`Get "` + raw + `/info/refs": s3cret rejected`)
	err := redactError(base, raw)
	if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, base) {
		t.Errorf("redactError = %q (wrapping kept: %v)", err, errors.Is(err, base))
	}
}
