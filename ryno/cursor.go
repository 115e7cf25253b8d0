package ryno

import (
	"github.com/rynodb/rynodb/internal/paging"
)

// CursorKeySize is the length of Options.CursorKey: an AES-256 key.
const CursorKeySize = paging.KeySize
