package relationships

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/rynodb/rynodb/entity"
)

// VersionLen is the length of a list's version: hexadecimal digits.
const VersionLen = 32

// Version returns the version of subject's list for predicate that holds count
// entries of digest d: a string of VersionLen hexadecimal digits, a hash of them.
// It names the list's contents, not its history: every change of an entry or a
// position changes it, and a list brought back to entries it held before, or a
// list of a new life of the subject holding the same entries, has the version it
// had. So a write conditional on it commits only over the list as read.
func Version(subject entity.Key, predicate string, count int, d Digest) string {
	h := sha256.New()
	for _, part := range []string{subject.String(), predicate, strconv.Itoa(count), d.String()} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil)[:VersionLen/2])
}

// VersionOf returns the version of the list of subject for predicate whose entries
// are entries (in any order).
func VersionOf(subject entity.Key, predicate string, entries []Entry) string {
	return Version(subject, predicate, len(entries), DigestOf(entries))
}

// ListVersion returns the version of the list h describes. It is the list's only while
// no writer holds it (h.Lease and h.Intent empty) and its bookkeeping is exact.
func (h Head) ListVersion() string { return Version(h.Subject, h.Predicate, h.Count, h.Digest) }

// ValidVersion reports whether v has the form of a list's version.
func ValidVersion(v string) bool {
	if len(v) != VersionLen {
		return false
	}
	for _, r := range v {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}
