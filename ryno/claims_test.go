package ryno

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

func emailEntry(id, email string) indexentries.Entry {
	return indexentries.Entry{Scope: "acme", Type: "user", ID: id, IndexName: "email", Value: indexing.String(email)}
}

func TestHandOverMergesAReleaseAndAClaimOfOneValue(t *testing.T) {
	c, err := New(struct{ DynamoDBAPI }{}, Options{TablePrefix: "t"})
	require.NoError(t, err)
	release := actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(emailEntry("a", "x")), Release: true}
	claim := actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(emailEntry("b", "x"))}
	releaseAct, claimAct := actions.Release(c.core.Names.IndexEntries, release.Claim), actions.Claim(c.core.Names.IndexEntries, claim.Claim, 1234)
	for _, pair := range []struct {
		a, b       actions.Role
		actA, actB types.TransactWriteItem
	}{{release, claim, releaseAct, claimAct}, {claim, release, claimAct, releaseAct}} {
		act, ok := handOver(pair.a, pair.b, pair.actA, pair.actB)
		require.True(t, ok)
		require.NotNil(t, act.Put, "the claim wins")
		require.Equal(t, str("b"), act.Put.Item[schema.AttrID])
		require.Equal(t, number(1234), act.Put.Item[schema.AttrExpires], "with its holder's expiry")
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

func TestConditionsBuildAndReportBadNames(t *testing.T) {
	tests := []struct {
		c    Condition
		text string
		err  bool
	}{
		{Attr("balance").GreaterOrEqual(30), "balance >= 30", false},
		{Attr("a.b").Equal("x"), "a.b = x", false},
		{Attr("n").Less(1).And(Exists()), "n < 1 and exists", false},
		{VersionIs(2), "version 2", false},
		{Attr("_version").Equal(1), "", true},
		{Attr("x[0]").Exists(), "", true},
		{Attr("f").Equal(func() {}), "", true},
	}
	for _, tt := range tests {
		if tt.err {
			require.Error(t, tt.c.err, tt.c.text)
			continue
		}
		require.NoError(t, tt.c.err)
		require.Equal(t, tt.text, tt.c.String())
		expr, err := expression.NewBuilder().WithCondition(tt.c.build(time.Now())).Build()
		require.NoError(t, err, tt.text)
		require.NotEmpty(t, *expr.Condition())
	}
	names := func(c Condition) []string {
		expr, err := expression.NewBuilder().WithCondition(c.build(time.Now())).Build()
		require.NoError(t, err)
		var out []string
		for _, n := range expr.Names() {
			out = append(out, n)
		}
		return out
	}
	require.Contains(t, names(Attr("a.b").Equal(1)), "a.b", "a name with a dot is one attribute")
}
