package secrets

import "testing"

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:s3cret@git.example/r.git":      "https://user:redacted@git.example/r.git",
		"https://ghp_token@git.example/r.git":        "https://redacted@git.example/r.git",
		"ssh://git@git.example/r.git":                "ssh://git@git.example/r.git",
		"https://bucket.example/f?sig=abc&expires=9": "https://bucket.example/f?expires=redacted&sig=redacted",
		"https://git.example/r.git":                  "https://git.example/r.git",
		"https://u:p@host:bad-port/x":                "https://redacted@host:bad-port/x",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
