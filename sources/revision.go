package sources

import (
	"fmt"
	"strings"
)

// SourceRevision identifies one commit of a source, a source revision,
// as "REF@sha1:HASH", the way Flux writes it: main@sha1:1a2b3c4…,
// v1.2.0@sha1:…, or sha1:… for a pinned commit.
type SourceRevision struct {
	// Ref is the short name of what was followed: a branch or tag name;
	// empty for a pinned commit.
	Ref string `json:"ref,omitempty"`
	// Commit is the full commit hash.
	Commit string `json:"commit"`
}

// String returns the revision in full: main@sha1:<40 hex digits>.
func (r SourceRevision) String() string {
	if r.Ref == "" {
		return "sha1:" + r.Commit
	}
	return r.Ref + "@sha1:" + r.Commit
}

// Short returns the revision with the commit shortened to 7 digits, for
// log lines and commit messages: main@sha1:1a2b3c4.
func (r SourceRevision) Short() string {
	c := r.Commit
	if len(c) > 7 {
		c = c[:7]
	}
	return SourceRevision{Ref: r.Ref, Commit: c}.String()
}

// ParseRevision parses the String form of a SourceRevision.
func ParseRevision(s string) (SourceRevision, error) {
	ref, hash, ok := strings.Cut(s, "@sha1:")
	if !ok {
		hash, ok = strings.CutPrefix(s, "sha1:")
		ref = ""
	}
	if !ok || hash == "" {
		return SourceRevision{}, fmt.Errorf("invalid revision %q: want REF@sha1:HASH or sha1:HASH", s)
	}
	return SourceRevision{Ref: ref, Commit: hash}, nil
}
