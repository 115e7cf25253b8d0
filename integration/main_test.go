package integration_test

import (
	"os"
	"testing"

	"github.com/rynodb/rynodb/internal/dynamotest"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }
