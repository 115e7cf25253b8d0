package numbers

import (
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// decoder keeps numbers as attributevalue.Number so that no digit is lost; Decode
// turns them into json.Number.
var decoder = attributevalue.NewDecoder(func(o *attributevalue.DecoderOptions) { o.UseNumber = true })

// Decode decodes av as a map[string]any result holds it: numbers become
// json.Number, which keeps every digit and which encoding/json writes as a number.
func Decode(av types.AttributeValue) (any, error) {
	var v any
	if err := decoder.Decode(av, &v); err != nil {
		return nil, err
	}
	return JSON(v), nil
}

// JSON replaces, in place and at any depth, the attributevalue.Number values
// of v with json.Number ones, and returns v.
func JSON(v any) any {
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
			x[k] = JSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = JSON(e)
		}
	}
	return v
}
