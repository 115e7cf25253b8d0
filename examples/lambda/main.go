// Command lambda serves a catalogue of articles and their authors as an AWS Lambda
// function behind an API Gateway HTTP API (payload format 2.0), stored with RynoDB.
//
// The store's client is made once, when the function starts (its cold start), and
// serves every invocation after: its DynamoDB client keeps its connections open
// between them. Configuration comes from the environment:
//
//	RYNO_TABLE_PREFIX          the tables' prefix, as given to ryno migrate up (required)
//	AWS_ENDPOINT_URL_DYNAMODB  another DynamoDB endpoint, such as DynamoDB Local
//	RYNO_CURSOR_KEY            32 random bytes, base64, to seal listing cursors
//	RYNO_HANDLER               "stream" for the stream consumer (StreamHandler); the API otherwise
//
// Build it for the provided.al2023 runtime on arm64:
//
//	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -tags lambda.norpc -o bootstrap .
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	// Lambda sends standard error to CloudWatch Logs; JSON lines are searchable there.
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	h, err := newHandlerFrom(context.Background(), os.Getenv, log)
	if err != nil {
		log.Error("start", "error", err)
		os.Exit(1)
	}
	if os.Getenv("RYNO_HANDLER") == "stream" {
		s, err := NewStreamHandler(h.db, log)
		if err != nil {
			log.Error("start", "error", err)
			os.Exit(1)
		}
		lambda.Start(s.Handle)
		return
	}
	lambda.Start(h.Handle)
}
