package integration_test

import (
	"os"
	"testing"

	"github.com/rynodb/rynodb/integration/dynamotest"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }
