package ryno

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/require"
)

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
