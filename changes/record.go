package changes

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Record is one stream record, whatever delivered it: Lambda (FromLambda) or the
// DynamoDB Streams API (FromStream).
type Record struct {
	Table          string // the table the record is of
	EventID        string
	EventName      string // INSERT, MODIFY or REMOVE
	SequenceNumber string
	Time           time.Time
	Old, New       map[string]types.AttributeValue // the images; nil where there is none
	// ViewType is the StreamViewType of the record's stream, which DynamoDB names in
	// every record: only NEW_AND_OLD_IMAGES can be read. "" (a record built by hand)
	// is read by its images: it must hold those its event needs.
	ViewType string
	// ByService says the DynamoDB service made the change: a time-to-live deletion.
	ByService bool
}

// ttlPrincipal is the user identity of the records of time-to-live deletions.
const ttlPrincipal = "dynamodb.amazonaws.com"

// FromStream returns the record r of the stream of table, as the DynamoDB Streams
// API's GetRecords returns it.
func FromStream(table string, r streams.Record) (Record, error) {
	rec := Record{Table: table, EventID: aws.ToString(r.EventID), EventName: string(r.EventName)}
	if r.UserIdentity != nil {
		rec.ByService = aws.ToString(r.UserIdentity.Type) == "Service" && aws.ToString(r.UserIdentity.PrincipalId) == ttlPrincipal
	}
	d := r.Dynamodb
	if d == nil {
		return rec, fmt.Errorf("changes: record %s has no change", rec.EventID)
	}
	rec.SequenceNumber, rec.ViewType = aws.ToString(d.SequenceNumber), string(d.StreamViewType)
	if d.ApproximateCreationDateTime != nil {
		rec.Time = d.ApproximateCreationDateTime.UTC()
	}
	var err error
	if rec.Old, err = streamImage(d.OldImage); err != nil {
		return rec, fmt.Errorf("changes: record %s: old image: %w", rec.EventID, err)
	}
	if rec.New, err = streamImage(d.NewImage); err != nil {
		return rec, fmt.Errorf("changes: record %s: new image: %w", rec.EventID, err)
	}
	return rec, nil
}

func streamImage(img map[string]streams.AttributeValue) (map[string]types.AttributeValue, error) {
	if img == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(img))
	for name, v := range img {
		av, err := streamValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		out[name] = av
	}
	return out, nil
}

// streamValue converts a value of the Streams API's types to DynamoDB's: the two
// packages declare the same union twice.
func streamValue(v streams.AttributeValue) (types.AttributeValue, error) {
	switch v := v.(type) {
	case *streams.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}, nil
	case *streams.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}, nil
	case *streams.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: v.Value}, nil
	case *streams.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}, nil
	case *streams.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}, nil
	case *streams.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: v.Value}, nil
	case *streams.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: v.Value}, nil
	case *streams.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: v.Value}, nil
	case *streams.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			av, err := streamValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = av
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case *streams.AttributeValueMemberM:
		m, err := streamImage(v.Value)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown value type %T", v)
}

// FromLambda returns r, a record of the event a Lambda function receives from a
// DynamoDB stream. Its table is the one its EventSourceArn names.
func FromLambda(r events.DynamoDBEventRecord) (Record, error) {
	rec := Record{EventID: r.EventID, EventName: r.EventName, SequenceNumber: r.Change.SequenceNumber,
		Time: r.Change.ApproximateCreationDateTime.UTC(), ViewType: r.Change.StreamViewType}
	if r.UserIdentity != nil {
		rec.ByService = r.UserIdentity.Type == "Service" && r.UserIdentity.PrincipalID == ttlPrincipal
	}
	table, ok := tableOfARN(r.EventSourceArn)
	if !ok {
		return rec, fmt.Errorf("changes: record %s: event source %q is not the ARN of a table's stream", rec.EventID, r.EventSourceArn)
	}
	rec.Table = table
	var err error
	if rec.Old, err = lambdaImage(r.Change.OldImage); err != nil {
		return rec, fmt.Errorf("changes: record %s: old image: %w", rec.EventID, err)
	}
	if rec.New, err = lambdaImage(r.Change.NewImage); err != nil {
		return rec, fmt.Errorf("changes: record %s: new image: %w", rec.EventID, err)
	}
	return rec, nil
}

// tableOfARN returns the table of a stream ARN:
// arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL.
func tableOfARN(arn string) (string, bool) {
	_, rest, ok := strings.Cut(arn, ":table/")
	if !ok {
		return "", false
	}
	table, _, ok := strings.Cut(rest, "/stream/")
	return table, ok && table != ""
}

func lambdaImage(img map[string]events.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	if len(img) == 0 {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(img))
	for name, v := range img {
		av, err := lambdaValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		out[name] = av
	}
	return out, nil
}

// lambdaValue converts a value of aws-lambda-go's events to DynamoDB's type. Its
// accessors panic on a value of another type, so each is called only for its own.
func lambdaValue(v events.DynamoDBAttributeValue) (_ types.AttributeValue, err error) {
	defer func() {
		// A value built by hand, not read from JSON, may hold nothing of its type:
		// the accessors then panic.
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed value: %v", p)
		}
	}()
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		list := v.List()
		out := make([]types.AttributeValue, len(list))
		for i, e := range list {
			av, err := lambdaValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = av
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case events.DataTypeMap:
		m, err := lambdaImage(v.Map())
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]types.AttributeValue{}
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown value type %d", v.DataType())
}
