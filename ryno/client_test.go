package ryno

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"
)

func TestNewRefusesANilClient(t *testing.T) {
	var client *dynamodb.Client
	var fake *fakeDB
	tests := []struct {
		name string
		api  DynamoDBAPI
	}{
		{"nil", nil},
		{"nil *dynamodb.Client", client},
		{"nil pointer of another type", fake},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := New(tt.api, Options{TablePrefix: "app"})
			require.Nil(t, db)
			requireInvalidField(t, err, "api")
		})
	}
}
