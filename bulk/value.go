package bulk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MarshalValue writes av in DynamoDB's JSON: {"S":"Ada"}, {"N":"1815"},
// {"B":"<base64>"}, {"SS":[...]}, {"NS":[...]}, {"BS":[...]}, {"BOOL":true},
// {"NULL":true}, {"L":[...]}, {"M":{...}}.
func MarshalValue(av types.AttributeValue) ([]byte, error) {
	v, err := jsonValue(av)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func jsonValue(av types.AttributeValue) (map[string]any, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}, nil
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}, nil
	case *types.AttributeValueMemberB:
		return map[string]any{"B": v.Value}, nil // []byte marshals as base64
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}, nil
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}, nil
	case *types.AttributeValueMemberBS:
		return map[string]any{"BS": v.Value}, nil
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}, nil
	case *types.AttributeValueMemberL:
		items := make([]any, len(v.Value))
		for i, e := range v.Value {
			j, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			items[i] = j
		}
		return map[string]any{"L": items}, nil
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(v.Value))
		for name, e := range v.Value {
			j, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			m[name] = j
		}
		return map[string]any{"M": m}, nil
	}
	return nil, fmt.Errorf("a %T has no DynamoDB JSON", av)
}

// dynamoJSON is a value in DynamoDB's JSON: exactly one field is set.
type dynamoJSON struct {
	S    *string                    `json:"S"`
	N    *json.Number               `json:"N"`
	B    []byte                     `json:"B"`
	SS   []string                   `json:"SS"`
	NS   []json.Number              `json:"NS"`
	BS   [][]byte                   `json:"BS"`
	BOOL *bool                      `json:"BOOL"`
	NULL *bool                      `json:"NULL"`
	L    []json.RawMessage          `json:"L"`
	M    map[string]json.RawMessage `json:"M"`
}

// UnmarshalValue reads a value in DynamoDB's JSON, as MarshalValue writes it.
func UnmarshalValue(data []byte) (types.AttributeValue, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("not a DynamoDB JSON value: %w", err)
	}
	if len(fields) != 1 {
		names := make([]string, 0, len(fields))
		for name := range fields {
			names = append(names, name)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("a DynamoDB JSON value has one type, not %v", names)
	}
	var d dynamoJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("not a DynamoDB JSON value: %w", err)
	}
	switch {
	case d.S != nil:
		return &types.AttributeValueMemberS{Value: *d.S}, nil
	case d.N != nil:
		return &types.AttributeValueMemberN{Value: d.N.String()}, nil
	case d.B != nil:
		return &types.AttributeValueMemberB{Value: d.B}, nil
	case d.SS != nil:
		return &types.AttributeValueMemberSS{Value: d.SS}, nil
	case d.NS != nil:
		ns := make([]string, len(d.NS))
		for i, n := range d.NS {
			ns[i] = n.String()
		}
		return &types.AttributeValueMemberNS{Value: ns}, nil
	case d.BS != nil:
		return &types.AttributeValueMemberBS{Value: d.BS}, nil
	case d.BOOL != nil:
		return &types.AttributeValueMemberBOOL{Value: *d.BOOL}, nil
	case d.NULL != nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case d.L != nil:
		l := make([]types.AttributeValue, len(d.L))
		for i, raw := range d.L {
			av, err := UnmarshalValue(raw)
			if err != nil {
				return nil, fmt.Errorf("L[%d]: %w", i, err)
			}
			l[i] = av
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case d.M != nil:
		m := make(map[string]types.AttributeValue, len(d.M))
		for name, raw := range d.M {
			av, err := UnmarshalValue(raw)
			if err != nil {
				return nil, fmt.Errorf("M.%s: %w", name, err)
			}
			m[name] = av
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, errors.New("a DynamoDB JSON value of no known type")
}
