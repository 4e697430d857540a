package secrets

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Prefix starts every masked value, of every format roleout has written.
const Prefix = "masked:"

// Masked values by format.
const (
	// HMACPrefix starts a keyed mask: HMACPrefix and 24 hex digits.
	HMACPrefix = Prefix + "hmac-sha256:"
	// LegacyPrefix started the unkeyed masks of roleout before keyed
	// masks (sha256 of "ns/name/key=value"); status branches written
	// then still hold them and still read.
	LegacyPrefix = Prefix + "sha256:"
	// Placeholder is a value in MaskChangeMarkers mode, and wherever no
	// Masker is given: it says nothing about the value.
	Placeholder = Prefix + "value"
	// Changed and Unchanged replace a value in a MaskChangeMarkers diff.
	Changed   = Prefix + "changed"
	Unchanged = Prefix + "unchanged"
)

// KeySize is the size of a generated key, in bytes.
const KeySize = 32

// minKeySize is the shortest key NewMasker accepts.
const minKeySize = 16

// Mode says what a masked value shows.
type Mode string

// The Modes of a Masker.
const (
	// MaskHMAC shows a keyed digest (the default).
	MaskHMAC Mode = "hmac"
	// MaskChangeMarkers shows only whether a value changed.
	MaskChangeMarkers Mode = "changeMarkers"
)

// lastApplied is kubectl's client-side-apply record, which copies the
// values.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Masker masks Secret values with a key. A nil *Masker is valid: it
// replaces every value with Placeholder and computes no keyed digest.
type Masker struct {
	key  []byte
	mode Mode
}

// NewMasker returns a Masker with key (at least 16 bytes) in mode (""
// is MaskHMAC).
func NewMasker(key []byte, mode Mode) (*Masker, error) {
	if len(key) < minKeySize {
		return nil, fmt.Errorf("mask key has %d bytes: it needs at least %d (generate one with: head -c %d /dev/urandom)", len(key), minKeySize, KeySize)
	}
	switch mode {
	case "":
		mode = MaskHMAC
	case MaskHMAC, MaskChangeMarkers:
	default:
		return nil, fmt.Errorf("mask mode %q: want %q or %q", mode, MaskHMAC, MaskChangeMarkers)
	}
	return &Masker{key: append([]byte(nil), key...), mode: mode}, nil
}

// NewKey returns KeySize random bytes.
func NewKey() ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate mask key: %w", err)
	}
	return key, nil
}

// Ephemeral returns a MaskHMAC Masker with a random key that lives as
// long as the value: for offline commands, which never write git. Its
// masks match no other run's.
func Ephemeral() *Masker {
	key, err := NewKey()
	if err != nil {
		// crypto/rand does not fail on supported platforms; a nil
		// Masker still masks, with placeholders.
		return nil
	}
	m, _ := NewMasker(key, MaskHMAC)
	return m
}

// Mode returns m's mode (MaskChangeMarkers for a nil Masker, which shows
// no digest either).
func (m *Masker) Mode() Mode {
	if m == nil {
		return MaskChangeMarkers
	}
	return m.mode
}

// IsSecret reports whether an object's apiVersion and kind are a core
// Secret's.
func IsSecret(apiVersion, kind string) bool { return apiVersion == "v1" && kind == "Secret" }

// IsMasked reports whether s is a masked value of any format.
func IsMasked(s string) bool { return strings.HasPrefix(s, Prefix) }

// Mask replaces, in place, each value of a Secret's data and stringData
// with what m shows of it (Digest in MaskHMAC mode, Placeholder
// otherwise), and kubectl's last-applied annotation with a placeholder.
// obj is the object's content as a JSON map; salt is the Secret's
// "namespace/name".
func (m *Masker) Mask(obj map[string]any, salt string) {
	if m.Mode() == MaskHMAC {
		m.Keyed(obj, salt)
		return
	}
	eachValue(obj, func(string, string) string { return Placeholder })
}

// Keyed replaces, in place, each value of a Secret's data and stringData
// with its keyed digest (whatever m's mode), and kubectl's last-applied
// annotation with a placeholder: the form identities are computed over.
// A nil Masker writes placeholders.
func (m *Masker) Keyed(obj map[string]any, salt string) {
	eachValue(obj, func(k, v string) string { return m.digest(salt, k, v) })
}

// MaskPair masks a live and a desired copy of one Secret (either may be
// nil) for a diff. In MaskChangeMarkers mode a desired value becomes
// Changed or Unchanged, compared in memory with the live value, and a live
// value Placeholder; otherwise both are masked as Mask does.
func (m *Masker) MaskPair(live, desired map[string]any, salt string) {
	if m.Mode() == MaskHMAC {
		if live != nil {
			m.Mask(live, salt)
		}
		if desired != nil {
			m.Mask(desired, salt)
		}
		return
	}
	before := map[string]string{}
	if live != nil {
		eachValue(live, func(k, v string) string { before[k] = v; return Placeholder })
	}
	if desired != nil {
		eachValue(desired, func(k, v string) string {
			if old, ok := before[k]; ok && old == v {
				return Unchanged
			}
			return Changed
		})
	}
}

// Sum returns the keyed digest (hex, 20 digits) of data under purpose, or
// "" for a nil Masker.
func (m *Masker) Sum(purpose string, data []byte) string {
	if m == nil {
		return ""
	}
	mac := hmac.New(sha256.New, m.key)
	mac.Write([]byte(purpose))
	mac.Write([]byte{0})
	mac.Write(data)
	return hex.EncodeToString(mac.Sum(nil)[:10])
}

// digest is HMACPrefix and the keyed digest of one value.
func (m *Masker) digest(salt, key, value string) string {
	if m == nil {
		return Placeholder
	}
	mac := hmac.New(sha256.New, m.key)
	mac.Write([]byte(salt + "/" + key + "=" + value))
	return HMACPrefix + hex.EncodeToString(mac.Sum(nil)[:12])
}

// eachValue replaces each data (base64-decoded first) and stringData value
// of obj with replace(dataKey, plaintext) and kubectl's last-applied
// annotation with a placeholder.
func eachValue(obj map[string]any, replace func(key, value string) string) {
	for _, field := range []string{"data", "stringData"} {
		values, ok := obj[field].(map[string]any)
		if !ok {
			continue
		}
		for k, v := range values {
			s, _ := v.(string)
			if field == "data" {
				if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
					s = string(raw)
				}
			}
			values[k] = replace(k, s)
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if _, ok := ann[lastApplied]; ok {
				ann[lastApplied] = Prefix + "last-applied-configuration"
			}
		}
	}
}
