package lists

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// A combined call reads its result on the list's head, where the writer that
// committed it left it, and leaves it there: taking it off at once would be one
// more write of the head, the item every writer of the list contends for. The
// client's next post on that list removes it in the same update; when no post
// comes within tidyAfter, one update of its own does; and the result of a client
// that stopped first is pruned by others' commits after relationships.RequestTTL.

// tidyAfter is how long the results a client read on a head wait for its next
// post there before an update of their own takes them off.
const tidyAfter = 250 * time.Millisecond

// maxTaken bounds the results one update takes off a head, so that its
// expression stays small; more wait for the next.
const maxTaken = 32

// resultsRead holds, by list, the results a client read on the list's head and has
// not yet taken off. It is safe for concurrent use.
type resultsRead struct {
	after time.Duration
	tidy  func(ID) // takes a list's results off, after `after` with no claim

	mu    sync.Mutex
	lists map[ID]*listResults
}

type listResults struct {
	ids   []string
	timer *time.Timer // tidy's, while ids is not empty
}

func newResultsRead(after time.Duration, tidy func(ID)) *resultsRead {
	return &resultsRead{after: after, tidy: tidy, lists: map[ID]*listResults{}}
}

// leave records ids as results read on list's head, to be claimed by the
// client's next post there, or by tidy once `after` has passed without one.
func (r *resultsRead) leave(list ID, ids ...string) {
	if len(ids) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lists[list]
	if l == nil {
		l = &listResults{}
		r.lists[list] = l
	}
	l.ids = append(l.ids, ids...)
	if l.timer == nil {
		l.timer = time.AfterFunc(r.after, func() { r.tidy(list) })
	}
}

// claim returns up to maxTaken results read on list's head, oldest first, for
// the caller to take off.
func (r *resultsRead) claim(list ID) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lists[list]
	if l == nil {
		return nil
	}
	n := min(len(l.ids), maxTaken)
	ids := l.ids[:n:n]
	l.ids = l.ids[n:]
	if len(l.ids) == 0 {
		if l.timer != nil {
			l.timer.Stop()
		}
		delete(r.lists, list)
	}
	return ids
}

// tidy takes off list's head the results the client read there and no post took
// off.
func (c *Engine) tidy(list ID) {
	ctx, cancel := context.WithTimeout(context.Background(), awaitAtMost)
	defer cancel()
	for ids := c.read.claim(list); len(ids) > 0; ids = c.read.claim(list) {
		remove, names := removeResults(ids)
		names["#v"] = schema.AttrVersion
		// A head deleted meanwhile took them with it: the condition keeps the update
		// from writing a head of nothing. Any other failure leaves them to be pruned.
		_, _ = c.core.API.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                aws.String(c.core.Names.Relationships),
			Key:                      relationships.HeadPrimaryKey(list.Subject, list.Predicate),
			UpdateExpression:         aws.String(strings.TrimPrefix(remove, " ")),
			ConditionExpression:      aws.String("attribute_exists(#v)"),
			ExpressionAttributeNames: names,
		})
	}
}

// removeResults returns the update clause that removes the results of ids from a
// head, with a leading space (empty for none), and the attribute names it uses.
func removeResults(ids []string) (string, map[string]string) {
	names := make(map[string]string, len(ids)+2)
	if len(ids) == 0 {
		return "", names
	}
	refs := make([]string, len(ids))
	for i, id := range ids {
		refs[i] = fmt.Sprintf("#d%d", i)
		names[refs[i]] = schema.DonePrefix + id
	}
	return " REMOVE " + strings.Join(refs, ", "), names
}
