package ryno

import (
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// decodeAny decodes av as a map[string]any result holds it: numbers become
// json.Number, which keeps every digit and which encoding/json writes as a number.
func decodeAny(av types.AttributeValue) (any, error) {
	var v any
	if err := decoder.Decode(av, &v); err != nil {
		return nil, err
	}
	return jsonNumbers(v), nil
}

// jsonNumbers replaces, in place and at any depth, the attributevalue.Number values
// of v with json.Number ones, and returns v.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case attributevalue.Number:
		return json.Number(x)
	case []attributevalue.Number:
		out := make([]json.Number, len(x))
		for i, n := range x {
			out[i] = json.Number(n)
		}
		return out
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	}
	return v
}
