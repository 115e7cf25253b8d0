package commit

import (
	"crypto/rand"
	"encoding/base64"
)

// NewToken returns a random token naming one write: stored on the item it writes,
// it lets the writer recognise its own write when a response is lost, and it serves
// as the ClientRequestToken of its transactions (at most 36 characters).
func NewToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}
