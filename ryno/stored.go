package ryno

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/schema"
)

// readStored decodes the state of item, nil for no item, as of the client's clock.
func (c *Client) readStored(k Key, item map[string]types.AttributeValue) (entitystate.State, error) {
	return decodeStored(k, item, c.opts.Now())
}

// decodeStored decodes the state of item, nil for no item, as of now.
func decodeStored(k Key, item map[string]types.AttributeValue, now time.Time) (entitystate.State, error) {
	s, err := entitystate.Decode(item, now)
	if err != nil {
		return s, wrap(err, "stored entity %s", k)
	}
	return s, nil
}

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
		unknown = append(unknown, displayIndex(name))
	}
	return unknown
}
