package ryno

import (
	"errors"
)

// errInjected is the failure tests inject into requests.
var errInjected = errors.New("injected failure")

// nilAPI is a DynamoDBAPI whose nil pointer New must refuse.
type nilAPI struct{ DynamoDBAPI }
