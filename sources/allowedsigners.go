package sources

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// allowedSigner is one line of a source.verify.sshKeys file, in
// ssh-keygen's allowed-signers form (principals [options] key) or
// authorized_keys form ([options] key [comment]).
//
// What is honoured: namespaces="…" (the key may sign only in those
// namespaces, and git signs in "git"), valid-after and valid-before
// (checked against the committer's or tagger's date, as git passes it to
// ssh-keygen). Principals name the signer in errors but are not matched
// against the committer's e-mail address, as `git verify-commit` does
// not. A cert-authority line is refused: certificates are not
// supported, list the signers' own keys. Other options
// (authorized_keys' no-pty, command=…) are ignored.
type allowedSigner struct {
	principals              string
	namespaces              []string
	validAfter, validBefore time.Time
	key                     ssh.PublicKey
	where                   string // "FILE line N"
}

// parseAllowedSigners parses a key file's lines; blank lines and #
// comments are skipped.
func parseAllowedSigners(file string, data []byte) ([]allowedSigner, error) {
	var out []allowedSigner
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s line %d", file, i+1)
		a, err := parseAllowedSigner(line)
		if err != nil {
			return nil, fmt.Errorf("source.verify.sshKeys %s: %w", where, err)
		}
		a.where = "source.verify.sshKeys " + where
		out = append(out, a)
	}
	return out, nil
}

func parseAllowedSigner(line string) (allowedSigner, error) {
	tokens := splitOutsideQuotes(line, func(r rune) bool { return r == ' ' || r == '\t' })
	keyAt, k := -1, ssh.PublicKey(nil)
	for i := 0; i+1 < len(tokens); i++ {
		if k = parseSSHKey(tokens[i], tokens[i+1]); k != nil {
			keyAt = i
			break
		}
	}
	if keyAt < 0 {
		return allowedSigner{}, fmt.Errorf("no SSH public key (ssh-ed25519 AAAA…) that parses in the line")
	}
	a := allowedSigner{key: k}
	var options string
	switch prefix := tokens[:keyAt]; len(prefix) {
	case 0:
	case 1:
		if looksLikeOptions(prefix[0]) {
			options = prefix[0]
		} else {
			a.principals = prefix[0]
		}
	case 2:
		a.principals, options = prefix[0], prefix[1]
	default:
		return allowedSigner{}, fmt.Errorf("want principals, options and a key, got %d fields before the key", len(prefix))
	}
	if err := a.setOptions(options); err != nil {
		return allowedSigner{}, err
	}
	return a, nil
}

// setOptions applies an allowed-signers option list
// (namespaces="git",valid-after=20240101).
func (a *allowedSigner) setOptions(options string) error {
	for _, opt := range splitOutsideQuotes(options, func(r rune) bool { return r == ',' }) {
		name, value, _ := strings.Cut(opt, "=")
		value = strings.Trim(value, `"`)
		var err error
		switch strings.ToLower(name) {
		case "cert-authority":
			return fmt.Errorf("cert-authority lines are not supported: list the signers' own keys")
		case "namespaces":
			a.namespaces = strings.Split(value, ",")
		case "valid-after":
			a.validAfter, err = parseSignerTime(value)
		case "valid-before":
			a.validBefore, err = parseSignerTime(value)
		}
		if err != nil {
			return fmt.Errorf("option %s: %w", name, err)
		}
	}
	return nil
}

// permits returns "" when the line lets its key sign in namespace at
// time at, else the reason it does not.
func (a allowedSigner) permits(namespace string, at time.Time) string {
	if len(a.namespaces) > 0 && !slices.Contains(a.namespaces, namespace) {
		return fmt.Sprintf("%s allows the key for namespaces %q only, not %q", a.where, strings.Join(a.namespaces, ","), namespace)
	}
	if !a.validAfter.IsZero() && at.Before(a.validAfter) {
		return fmt.Sprintf("%s makes the key valid after %s only; the object is dated %s", a.where, a.validAfter.Format(time.RFC3339), at.Format(time.RFC3339))
	}
	if !a.validBefore.IsZero() && !at.Before(a.validBefore) {
		return fmt.Sprintf("%s makes the key valid before %s only; the object is dated %s", a.where, a.validBefore.Format(time.RFC3339), at.Format(time.RFC3339))
	}
	return ""
}

// parseSignerTime parses ssh-keygen's YYYYMMDD[HHMM[SS]][Z] (local time
// without the Z).
func parseSignerTime(v string) (time.Time, error) {
	loc := time.Local
	if s, ok := strings.CutSuffix(v, "Z"); ok {
		v, loc = s, time.UTC
	}
	for _, layout := range []string{"20060102", "200601021504", "20060102150405"} {
		if len(v) == len(layout) {
			return time.ParseInLocation(layout, v, loc)
		}
	}
	return time.Time{}, fmt.Errorf("%q is not YYYYMMDD[HHMM[SS]][Z]", v)
}

// parseSSHKey returns the public key of a "type base64" pair, or nil
// when the pair is not one.
func parseSSHKey(typ, b64 string) ssh.PublicKey {
	if !strings.HasPrefix(typ, "ssh-") && !strings.HasPrefix(typ, "ecdsa-") && !strings.HasPrefix(typ, "sk-") {
		return nil
	}
	blob, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil
	}
	k, err := ssh.ParsePublicKey(blob)
	if err != nil || k.Type() != typ {
		return nil
	}
	return k
}

// looksLikeOptions tells an options field from a principals field when
// a line has only one of them before the key.
func looksLikeOptions(token string) bool {
	return strings.Contains(token, "=") || strings.EqualFold(token, "cert-authority") || strings.HasPrefix(token, "no-")
}

// splitOutsideQuotes splits s at the runes sep matches outside double
// quotes, dropping empty parts.
func splitOutsideQuotes(s string, sep func(rune) bool) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && sep(r):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
