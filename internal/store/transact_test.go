package store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestHandOverMergesAReleaseAndAClaimOfOneValue(t *testing.T) {
	names, err := schema.NewNames("t")
	require.NoError(t, err)
	release := actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(emailEntry("a", "x")), Release: true}
	claim := actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(emailEntry("b", "x"))}
	releaseAct, claimAct := actions.Release(names.IndexEntries, release.Claim), actions.Claim(names.IndexEntries, claim.Claim, 1234)
	for _, pair := range []struct {
		a, b       actions.Role
		actA, actB types.TransactWriteItem
	}{{release, claim, releaseAct, claimAct}, {claim, release, claimAct, releaseAct}} {
		act, ok := handOver(pair.a, pair.b, pair.actA, pair.actB)
		require.True(t, ok)
		require.NotNil(t, act.Put, "the claim wins")
		require.Equal(t, attrS("b"), act.Put.Item[schema.AttrID])
		require.Equal(t, attrN(1234), act.Put.Item[schema.AttrExpires], "with its holder's expiry")
		values := act.Put.ExpressionAttributeValues
		require.Contains(t, values, findValue(t, values, "a"), "either owner may hold it")
		require.Contains(t, values, findValue(t, values, "b"))
	}
	_, ok := handOver(claim, claim, claimAct, claimAct)
	require.False(t, ok, "two claims of one value cannot both commit")
	_, ok = handOver(actions.Role{Kind: actions.RoleEntry}, claim, types.TransactWriteItem{}, claimAct)
	require.False(t, ok)
}

func findValue(t *testing.T, values map[string]types.AttributeValue, s string) string {
	t.Helper()
	for k, v := range values {
		if sv, ok := v.(*types.AttributeValueMemberS); ok && sv.Value == s {
			return k
		}
	}
	t.Fatalf("no value %q in %v", s, values)
	return ""
}
