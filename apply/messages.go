package apply

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the one home of what a not-ready error may carry of the
// text that pods and controllers write into status: that error reaches
// the status branch and history in git, so the text is put on one line
// and stripped of anything that looks like a credential, and a pod's own
// message (a termination message, a log tail with FallbackToLogsOnError)
// is also cut short.

// maxPodMessage is the most bytes kept of one container message.
const maxPodMessage = 256

// redactedText replaces what looks like a credential.
const redactedText = "[redacted]"

// credentialPatterns find what looks like a credential, most specific
// first; each replacement keeps the name of what was redacted.
var credentialPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	// PEM key blocks, to their end or the end of the text (a log tail).
	{regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*KEY-----.*?(?:-----END [A-Z0-9 ]*KEY-----|\z)`), redactedText},
	// User information in URLs: https://user:pass@host, https://token@host.
	{regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^\s/@]+@`), "${1}" + redactedText + "@"},
	// Authorization headers, whatever their scheme.
	{regexp.MustCompile(`(?i)\b((?:proxy-)?authorization["']?\s*[:=]\s*)(?:(?:bearer|basic|digest|token)\s+)?[^\s,;"']+`), "${1}" + redactedText},
	{regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/-]+=*`), "${1}" + redactedText},
	// password=…, token: …, "apiKey": "…" and the like.
	{regexp.MustCompile(`(?i)\b([\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|credentials?)[\w.-]*["']?\s*[:=]\s*)(?:"[^"]*"|'[^']*'|[^\s,;&"']+)`), "${1}" + redactedText},
	// Long hex runs: keys, digests of secrets.
	{regexp.MustCompile(`[0-9A-Fa-f]{20,}`), redactedText},
}

// base64Run is a run of base64 (standard or URL-safe, without '/', which
// paths are full of) long enough to be a key or token; redactCredentials
// redacts it when it mixes upper case, lower case and digits, which
// Kubernetes names and English words do not.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+_-]{20,}={0,2}`)

// redactCredentials returns s with everything that looks like a
// credential replaced by "[redacted]".
func redactCredentials(s string) string {
	for _, p := range credentialPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return base64Run.ReplaceAllStringFunc(s, func(run string) string {
		if strings.ContainsFunc(run, unicode.IsUpper) && strings.ContainsFunc(run, unicode.IsLower) && strings.ContainsFunc(run, unicode.IsDigit) {
			return redactedText
		}
		return run
	})
}

// statusText returns text from an object's status fit for a not-ready
// error: credentials redacted, valid UTF-8, control characters and line
// breaks made single spaces.
func statusText(s string) string {
	s = redactCredentials(strings.ToValidUTF8(s, "?"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// podMessage returns a container's message (waiting or terminated) fit
// for a not-ready error: statusText, cut to at most maxPodMessage bytes
// on a character boundary ("…" ends a message that was cut).
func podMessage(s string) string {
	s = statusText(s)
	if len(s) <= maxPodMessage {
		return s
	}
	const ellipsis = "…"
	cut := maxPodMessage - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
