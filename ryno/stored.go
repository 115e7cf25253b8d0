package ryno

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
)

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// unknownIndexes returns the names in the encoded set stored that are not in mine.
func unknownIndexes(stored, mine string) []string {
	if stored == "" || stored == mine {
		return nil
	}
	known := strings.Split(mine, string(schema.Delimiter))
	var unknown []string
	for _, escaped := range strings.Split(stored, string(schema.Delimiter)) {
		if slices.Contains(known, escaped) {
			continue
		}
		name, err := schema.Unescape(escaped)
		if err != nil {
			name = escaped
		}
		unknown = append(unknown, indexes.Display(name))
	}
	return unknown
}
