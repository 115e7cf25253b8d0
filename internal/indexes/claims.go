package indexes

import "github.com/rynodb/rynodb/internal/indexentries"

// ClaimChanges returns the claims a write of an entity makes and releases: the
// values of its unique indexes it emits and the stored entries do not hold, and
// those they hold that it no longer emits.
func (reg Registry[E]) ClaimChanges(stored, emitted []indexentries.Entry) (claims, releases []indexentries.Claim) {
	held := map[string]bool{}
	for _, cl := range reg.UniqueClaims(stored) {
		held[claimID(cl)] = true
	}
	wanted := map[string]bool{}
	for _, cl := range reg.UniqueClaims(emitted) {
		wanted[claimID(cl)] = true
		if !held[claimID(cl)] {
			claims = append(claims, cl)
		}
	}
	for _, cl := range reg.UniqueClaims(stored) {
		if !wanted[claimID(cl)] {
			releases = append(releases, cl)
		}
	}
	return claims, releases
}

// claimID names the value a claim is of, whoever holds it.
func claimID(cl indexentries.Claim) string { return cl.IndexName + "\x00" + cl.Value.Encoding() }

// UniqueClaims returns the claims of the values entries emit into unique indexes,
// once each.
func (reg Registry[E]) UniqueClaims(entries []indexentries.Entry) []indexentries.Claim {
	seen := map[string]bool{}
	var claims []indexentries.Claim
	for _, e := range entries {
		cl := indexentries.ClaimOf(e)
		if reg.Unique(e.Type, e.IndexName) && !seen[claimID(cl)] {
			seen[claimID(cl)] = true
			claims = append(claims, cl)
		}
	}
	return claims
}

// ClaimsOf returns the claims of the values entries hold in unique indexes: of the
// record of an entity item (store.RecordEntries), what its Delete releases.
func (reg Registry[E]) ClaimsOf(entries []indexentries.Entry) []indexentries.Claim {
	var claims []indexentries.Claim
	for _, e := range entries {
		if reg.Unique(e.Type, e.IndexName) {
			claims = append(claims, indexentries.ClaimOf(e))
		}
	}
	return claims
}
