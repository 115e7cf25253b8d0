package integration_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// postCounter counts the requests a client posts on list heads to combine its
// calls with other writers', those posts that also take off results the client
// read before, and the updates that take off only such results.
type postCounter struct {
	ryno.DynamoDBAPI
	posts, postsTakingResults, takingResults atomic.Int64
}

func (p *postCounter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	update := aws.ToString(in.UpdateExpression)
	takes := strings.HasPrefix(in.ExpressionAttributeNames["#d0"], schema.DonePrefix)
	switch {
	case strings.HasPrefix(in.ExpressionAttributeNames["#w"], schema.WaitingPrefix) && strings.HasPrefix(update, "SET"):
		p.posts.Add(1)
		if takes {
			p.postsTakingResults.Add(1)
		}
	case takes && strings.HasPrefix(update, "REMOVE"):
		p.takingResults.Add(1)
	}
	return p.DynamoDBAPI.UpdateItem(ctx, in, opts...)
}

// TestWritersOfOneListInManyClientsCombineTheirCalls runs 8 clients, as 8
// processes would, each appending objects of its own to one list and removing
// them, all at once, round after round: their calls combine on the list's head
// (some are posted there), every call reports exactly its own object changed,
// and the list is exact after.
func TestWritersOfOneListInManyClientsCombineTheirCalls(t *testing.T) {
	dynamotest.Parallel(t)
	const writers, rounds, steps = 8, 6, 6
	s, subject := listStore(t, ryno.Options{})
	counters := make([]*postCounter, writers)
	clients := make([]*ryno.Client, writers)
	for w := range clients {
		counters[w] = &postCounter{DynamoDBAPI: s.raw}
		db, err := ryno.New(counters[w], ryno.Options{TablePrefix: s.prefix, ConsistentRead: true})
		require.NoError(t, err)
		clients[w] = db
	}
	var want []ryno.Key
	for round := range rounds {
		errs := make([]error, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w, db := range clients {
			kept := pk(fmt.Sprintf("r%d-w%d-kept", round, w))
			want = append(want, kept)
			wg.Go(func() {
				<-start
				for i := range steps {
					o := pk(fmt.Sprintf("r%d-w%d-%d", round, w, i))
					for _, add := range []bool{true, false} {
						var got []ryno.Key
						var err error
						if add {
							got, err = db.AddRelationships(ctx, subject, "follows", []ryno.Key{o})
						} else {
							got, err = db.RemoveRelationships(ctx, subject, "follows", []ryno.Key{o})
						}
						if err == nil && !slices.Equal(got, []ryno.Key{o}) {
							err = fmt.Errorf("add %t of %s changed %v", add, o, got)
						}
						errs[w] = errors.Join(errs[w], err)
					}
				}
				got, err := db.AddRelationships(ctx, subject, "follows", []ryno.Key{kept})
				if err == nil && !slices.Equal(got, []ryno.Key{kept}) {
					err = fmt.Errorf("add of %s changed %v", kept, got)
				}
				errs[w] = errors.Join(errs[w], err)
			})
		}
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
	}
	require.ElementsMatch(t, want, objectsOf(t, s.Client, subject, "follows", 500))
	requireListExact(t, s, subject, "follows")
	var posts, postsTaking int64
	for _, c := range counters {
		posts += c.posts.Load()
		postsTaking += c.postsTakingResults.Load()
	}
	require.Positive(t, posts, "calls were combined on the head")
	require.Positive(t, postsTaking, "results read were taken off by the readers' next posts")
	require.Empty(t, rawHead(t, s, subject, "follows").Waiting, "no request is left waiting")
	require.Eventually(t, func() bool { return len(rawHead(t, s, subject, "follows").Done) == 0 },
		time.Minute, 50*time.Millisecond, "every result is taken off: the last ones by updates of their own")
	var tidied int64
	for _, c := range counters {
		tidied += c.takingResults.Load()
	}
	require.Positive(t, tidied, "the results no post took off")
}

// contend makes the first write of subject's list by a new client lose its attempt
// to another writer's commit, so that the client combines its writes of that list
// for a while; it returns the client and the counter of what it posts.
func contend(t *testing.T, s *store, subject ryno.Key) (*ryno.Client, *postCounter) {
	t.Helper()
	_, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("first")})
	require.NoError(t, err)
	rival := newClientOn(t, s, ryno.Options{})
	overtaken := false
	posts := &postCounter{DynamoDBAPI: dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
		if op == "TransactWriteItems" && !overtaken {
			overtaken = true
			if _, err := rival.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("rival")}); err != nil {
				return err
			}
		}
		return send(ctx)
	})}
	db, err := ryno.New(posts, ryno.Options{TablePrefix: s.prefix, ConsistentRead: true})
	require.NoError(t, err)
	got, err := db.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("second")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("second")}, got)
	require.True(t, overtaken)
	require.Equal(t, int64(1), posts.posts.Load(), "the write lost to a commit, and combined")
	return db, posts
}

// postRaw posts a request on the head of subject's list as a writer cut off
// would have left it.
func postRaw(t *testing.T, s *store, subject ryno.Key, r relationships.Request) {
	t.Helper()
	_, err := s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Names().Relationships),
		Key:                       relationships.HeadPrimaryKey(subject, "follows"),
		UpdateExpression:          aws.String("SET #w = :r"),
		ExpressionAttributeNames:  map[string]string{"#w": schema.WaitingPrefix + r.ID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": relationships.RequestValue(r)},
	})
	require.NoError(t, err)
}

// rawHead reads the head of subject's list.
func rawHead(t *testing.T, s *store, subject ryno.Key, predicate string) relationships.Head {
	t.Helper()
	out, err := s.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Names().Relationships),
		Key: relationships.HeadPrimaryKey(subject, predicate), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	h, err := relationships.HeadFromItem(subject, predicate, out.Item)
	require.NoError(t, err)
	return h
}

// TestARequestLeftOnTheHeadIsCommittedOrDropped leaves on a list's head the
// requests of two writers cut off, one just posted and one posted longer ago than
// relationships.RequestTTL: the next combined write commits the first with its
// own (after waiting takeOver for its writer), leaving its result on the head, and
// drops the second without committing it.
func TestARequestLeftOnTheHeadIsCommittedOrDropped(t *testing.T) {
	dynamotest.Parallel(t)
	s, subject := listStore(t, ryno.Options{})
	db, posts := contend(t, s, subject)
	postRaw(t, s, subject, relationships.Request{ID: "cut-off", Objects: []ryno.Key{pk("left")}, Posted: time.Now()})
	postRaw(t, s, subject, relationships.Request{ID: "long-gone", Objects: []ryno.Key{pk("stale")},
		Posted: time.Now().Add(-relationships.RequestTTL - time.Minute)})

	got, err := db.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("mine")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("mine")}, got)
	require.Equal(t, int64(2), posts.posts.Load(), "combined at once")
	require.Equal(t, []ryno.Key{pk("first"), pk("rival"), pk("second"), pk("left"), pk("mine")}, objectsOf(t, s.Client, subject, "follows", 10),
		"the request left is committed, in the order of the requests")
	head := rawHead(t, s, subject, "follows")
	require.Empty(t, head.Waiting, "neither request waits any longer")
	require.Equal(t, map[string]relationships.Done{"cut-off": {Changed: []ryno.Key{pk("left")}, At: head.Done["cut-off"].At}}, head.Done,
		"the result of the writer cut off stays for it; the request too old was dropped")
	requireListExact(t, s, subject, "follows")
}

// TestACombinedWriteThatGivesUpIsNeverCommitted posts a write on a head held by a
// lease, with a context that ends before the lease does: the call fails with its
// context's error and takes its request back, so that the writes after the lease
// never commit it.
func TestACombinedWriteThatGivesUpIsNeverCommitted(t *testing.T) {
	dynamotest.Parallel(t)
	s, subject := listStore(t, ryno.Options{})
	db, posts := contend(t, s, subject)
	key := relationships.HeadPrimaryKey(subject, "follows")
	lease := func(update string, values map[string]types.AttributeValue) {
		_, err := s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.Names().Relationships), Key: key,
			UpdateExpression: aws.String(update), ExpressionAttributeNames: map[string]string{"#l": schema.AttrLease, "#u": schema.AttrLeaseUntil},
			ExpressionAttributeValues: values})
		require.NoError(t, err)
	}
	until := time.Now().Add(time.Minute).UnixMilli()
	lease("SET #l = :l, #u = :u", map[string]types.AttributeValue{":l": &types.AttributeValueMemberS{Value: "held"},
		":u": &types.AttributeValueMemberN{Value: strconv.FormatInt(until, 10)}})

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := db.AddRelationships(short, subject, "follows", []ryno.Key{pk("given-up")})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, int64(2), posts.posts.Load(), "the write was posted")
	require.Empty(t, rawHead(t, s, subject, "follows").Waiting, "and taken back")

	lease("REMOVE #l, #u", nil)
	for i := range 3 {
		_, err := db.AddRelationships(ctx, subject, "follows", []ryno.Key{pk(fmt.Sprint("after-", i))})
		require.NoError(t, err)
	}
	require.NotContains(t, objectsOf(t, s.Client, subject, "follows", 10), pk("given-up"))
	requireListExact(t, s, subject, "follows")
}

// TestCheckReportsRequestsLeftOnAHeadAndRepairDropsThem leaves on a list's head a
// request and a result of writers cut off more than relationships.RequestTTL ago,
// and one just posted: a check reports the list, a repair drops the two left and
// keeps the one a writer may still wait for, and the list is exact after.
func TestCheckReportsRequestsLeftOnAHeadAndRepairDropsThem(t *testing.T) {
	dynamotest.Parallel(t)
	s, subject := listStore(t, ryno.Options{})
	_, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("a")})
	require.NoError(t, err)
	long := s.clock.Now().Add(-relationships.RequestTTL - time.Minute) // by the store's clock
	postRaw(t, s, subject, relationships.Request{ID: "long-gone", Objects: []ryno.Key{pk("stale")}, Posted: long})
	// The store's clock moves a second at each reading: ten minutes ahead, the
	// request is still one a writer may wait for when the repair ends.
	postRaw(t, s, subject, relationships.Request{ID: "waiting", Objects: []ryno.Key{pk("fresh")}, Posted: s.clock.Now().Add(10 * time.Minute)})
	_, err = s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Names().Relationships),
		Key:                       relationships.HeadPrimaryKey(subject, "follows"),
		UpdateExpression:          aws.String("SET #d = :d"),
		ExpressionAttributeNames:  map[string]string{"#d": schema.DonePrefix + "never-taken"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": relationships.DoneValue([]ryno.Key{pk("b")}, long)},
	})
	require.NoError(t, err)

	var traces []ryno.Trace
	done, err := s.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Equal(t, 1, done.Traces)
	require.Equal(t, ryno.TraceList, traces[0].Kind)
	require.Contains(t, traces[0].Detail, "2 requests or results of combined writes are left")

	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Finished)
	head := rawHead(t, s, subject, "follows")
	require.Equal(t, []string{"waiting"}, requestIDs(head.Waiting), "the request a writer may still wait for stays")
	require.Empty(t, head.Done, "the result never taken is dropped")
	requireListExact(t, s, subject, "follows")
	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Traces)
}

func requestIDs(rs []relationships.Request) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// TestWhenCommitsAreSlowWaitingWritersStepInOneAtATime runs 6 clients writing one
// list at once while every transaction takes longer than the least wait after
// which a writer stands in for the oldest request's writer (a loaded DynamoDB).
// That writer is alive, only slow: the others wait for it, so transactions
// refused because another combined the same requests first stay few, where every
// waiting writer stepping in once the oldest request is that old sent about four
// refused transactions a commit.
func TestWhenCommitsAreSlowWaitingWritersStepInOneAtATime(t *testing.T) {
	dynamotest.Parallel(t)
	const writers, calls, slow = 6, 4, 150 * time.Millisecond // slow: 1.5 × the wait
	s, subject := listStore(t, ryno.Options{})
	var committed, refused atomic.Int64
	clients := make([]*ryno.Client, writers)
	for w := range clients {
		api := dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
			if op != "TransactWriteItems" {
				return send(ctx)
			}
			time.Sleep(slow)
			err := send(ctx)
			if errors.As(err, new(*types.TransactionCanceledException)) {
				refused.Add(1)
			} else if err == nil {
				committed.Add(1)
			}
			return err
		})
		db, err := ryno.New(api, ryno.Options{TablePrefix: s.prefix, ConsistentRead: true})
		require.NoError(t, err)
		clients[w] = db
	}
	var want []ryno.Key
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w, db := range clients {
		for i := range calls {
			want = append(want, pk(fmt.Sprintf("w%d-%d", w, i)))
		}
		wg.Go(func() {
			<-start
			for i := range calls {
				o := pk(fmt.Sprintf("w%d-%d", w, i))
				got, err := db.AddRelationships(ctx, subject, "follows", []ryno.Key{o})
				if err == nil && !slices.Equal(got, []ryno.Key{o}) {
					err = fmt.Errorf("add of %s changed %v", o, got)
				}
				errs[w] = errors.Join(errs[w], err)
			}
		})
	}
	close(start)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.ElementsMatch(t, want, objectsOf(t, s.Client, subject, "follows", 100))
	requireListExact(t, s, subject, "follows")
	t.Logf("transactions: %d committed, %d refused", committed.Load(), refused.Load())
	require.LessOrEqual(t, refused.Load(), committed.Load()+2*writers,
		"besides the first attempts alone, not every waiting writer commits")
}
