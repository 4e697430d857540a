package sharding

import (
	"crypto/sha256"
	"encoding/binary"
)

// Assign returns the member that should own app among the live members:
// rendezvous (highest random weight) hashing, so that a member joining
// takes about 1/N of the apps from the others and a member leaving gives
// only its own apps away, each to the member that scores next for it.
// It returns "" when there are no members.
func Assign(app string, members []string) string {
	var best string
	var bestScore uint64
	for _, m := range members {
		s := score(m, app)
		if best == "" || s > bestScore || (s == bestScore && m < best) {
			best, bestScore = m, s
		}
	}
	return best
}

// score is the weight of member for app: the first 8 bytes of the SHA-256
// of both names, kept apart by a NUL that neither may contain.
func score(member, app string) uint64 {
	h := sha256.New()
	h.Write([]byte(member))
	h.Write([]byte{0})
	h.Write([]byte(app))
	return binary.BigEndian.Uint64(h.Sum(nil))
}
