package ryno

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// errInjected is the failure tests inject into requests.
var errInjected = errors.New("injected failure")

// testKey and testItem are the key and item of item i of a table keyed by pk and sk.
func testKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": str(fmt.Sprintf("k%04d", i)), "sk": str("s")}
}

func testItem(i int, value string) map[string]types.AttributeValue {
	item := testKey(i)
	item["v"] = str(value)
	return item
}

// nilAPI is a DynamoDBAPI whose nil pointer New must refuse.
type nilAPI struct{ DynamoDBAPI }
