package changes

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/ryno"
)

// fakeShard is a shard of fakeStreams: its records, and whether DynamoDB closed it.
type fakeShard struct {
	id, parent string
	records    []streams.Record
	closed     bool
}

// fakeStreams serves shards as the DynamoDB Streams API would, including what
// DynamoDB Local cannot produce: shards closed and split into children.
type fakeStreams struct {
	mu     sync.Mutex
	shards []*fakeShard
	reads  int
}

func (f *fakeStreams) shard(id string) *fakeShard {
	for _, s := range f.shards {
		if s.id == id {
			return s
		}
	}
	return nil
}

// add appends records named by seqs to shard id, creating it under parent.
func (f *fakeStreams) add(id, parent string, seqs ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.shard(id)
	if s == nil {
		s = &fakeShard{id: id, parent: parent}
		f.shards = append(f.shards, s)
	}
	for _, seq := range seqs {
		s.records = append(s.records, record(seq, "k"+seq))
	}
}

func (f *fakeStreams) close(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shard(id).closed = true
}

func record(seq, id string) streams.Record {
	return streams.Record{EventName: streams.OperationTypeInsert, Dynamodb: &streams.StreamRecord{SequenceNumber: aws.String(seq),
		Keys: map[string]streams.AttributeValue{"_id": &streams.AttributeValueMemberS{Value: id}}}}
}

func (f *fakeStreams) DescribeStream(_ context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var shards []streams.Shard
	for _, s := range f.shards {
		sh := streams.Shard{ShardId: aws.String(s.id)}
		if s.parent != "" {
			sh.ParentShardId = aws.String(s.parent)
		}
		shards = append(shards, sh)
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: &streams.StreamDescription{Shards: shards}}, nil
}

func (f *fakeStreams) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.shard(aws.ToString(in.ShardId))
	pos := 0
	if in.ShardIteratorType == streams.ShardIteratorTypeAfterSequenceNumber {
		pos = slices.IndexFunc(s.records, func(r streams.Record) bool { return sequenceOf(r) == aws.ToString(in.SequenceNumber) }) + 1
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(s.id + "@" + strconv.Itoa(pos))}, nil
}

func (f *fakeStreams) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	id, at, _ := strings.Cut(aws.ToString(in.ShardIterator), "@")
	pos, _ := strconv.Atoi(at)
	s := f.shard(id)
	end := min(pos+int(aws.ToInt32(in.Limit)), len(s.records))
	out := &dynamodbstreams.GetRecordsOutput{Records: slices.Clone(s.records[pos:end])}
	if !s.closed || end < len(s.records) {
		out.NextShardIterator = aws.String(id + "@" + strconv.Itoa(end))
	}
	return out, nil
}

// fakeTable describes a table with a stream.
type fakeTable struct{}

func (fakeTable) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{LatestStreamArn: aws.String("arn:stream"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true)}}}, nil
}

// collector is a Handler that keeps the sequence numbers it handled, and cancels
// the run once it has as many as want.
type collector struct {
	mu     sync.Mutex
	seqs   []string
	want   int
	cancel context.CancelFunc
	fail   func(seq string) bool // when set, the record it names fails
}

func (c *collector) handle(_ context.Context, _ string, records []streams.Record) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, r := range records {
		if c.fail != nil && c.fail(sequenceOf(r)) {
			return i, fmt.Errorf("record %s failed", sequenceOf(r))
		}
		c.seqs = append(c.seqs, sequenceOf(r))
	}
	if len(c.seqs) >= c.want {
		c.cancel()
	}
	return len(records), nil
}

// runUntil runs r until the handler has want records (or ten seconds pass) and
// returns them in the order handled.
func runUntil(t *testing.T, r *Reader, want int, fail func(string) bool) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &collector{want: want, cancel: cancel, fail: fail}
	err := r.Run(ctx, c.handle)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seqs, err
}

func newFakeReader(t *testing.T, f *fakeStreams, cp Checkpoints) *Reader {
	t.Helper()
	r, err := NewReader(f, fakeTable{}, ReaderOptions{Table: "app_entities_master", Checkpoints: cp, Poll: time.Millisecond, Limit: 2})
	require.NoError(t, err)
	return r
}

// TestReaderReadsParentsBeforeChildren splits a shard in two, one of which splits
// again: every record is handed once, each shard in order, and no record of a
// child before every record of its parent.
func TestReaderReadsParentsBeforeChildren(t *testing.T) {
	f := &fakeStreams{}
	f.add("p", "", "p1", "p2", "p3")
	f.add("c1", "p", "c1a", "c1b")
	f.add("c2", "p", "c2a", "c2b", "c2c")
	f.add("g", "c1", "g1")
	f.close("p")
	f.close("c1")
	f.close("c2")
	cp := NewMemoryCheckpoints()
	seqs, err := runUntil(t, newFakeReader(t, f, cp), 9, nil)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"p1", "p2", "p3", "c1a", "c1b", "c2a", "c2b", "c2c", "g1"}, seqs, "each record once")
	pos := func(seq string) int { return slices.Index(seqs, seq) }
	for _, child := range []string{"c1a", "c2a"} {
		require.Greater(t, pos(child), pos("p3"), "%s after its parent's last record", child)
	}
	require.Greater(t, pos("g1"), pos("c1b"))
	require.Less(t, pos("c2a"), pos("c2b"))
	require.Less(t, pos("c2b"), pos("c2c"))

	positions, err := cp.Load(context.Background())
	require.NoError(t, err)
	require.Equal(t, map[string]string{"p": ShardEnd, "c1": ShardEnd, "c2": ShardEnd, "g": "g1"}, positions)
}

// TestReaderGoesOnFromItsCheckpoints runs a reader, writes more, and runs it again:
// the second run hands only what is new, including a shard opened meanwhile.
func TestReaderGoesOnFromItsCheckpoints(t *testing.T) {
	f := &fakeStreams{}
	f.add("s", "", "1", "2", "3")
	cp := NewMemoryCheckpoints()
	seqs, err := runUntil(t, newFakeReader(t, f, cp), 3, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"1", "2", "3"}, seqs)

	f.add("s", "", "4", "5")
	f.close("s")
	f.add("t", "s", "6")
	seqs, err = runUntil(t, newFakeReader(t, f, cp), 3, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"4", "5", "6"}, seqs)
}

// TestReaderHandsAFailedBatchAgain fails the handler at a record: Run returns the
// error, and the next run hands that record and those after it again, none before.
func TestReaderHandsAFailedBatchAgain(t *testing.T) {
	f := &fakeStreams{}
	f.add("s", "", "1", "2", "3", "4")
	cp := NewMemoryCheckpoints()
	seqs, err := runUntil(t, newFakeReader(t, f, cp), 4, func(seq string) bool { return seq == "3" })
	require.ErrorContains(t, err, "record 3 failed")
	require.Equal(t, []string{"1", "2"}, seqs)

	seqs, err = runUntil(t, newFakeReader(t, f, cp), 2, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"3", "4"}, seqs, "at least once: from the record that failed")
}

// ownCheckpoints are MemoryCheckpoints kept in the item whose _id is "own", in the
// stream read, counting their saves.
type ownCheckpoints struct {
	*MemoryCheckpoints
	saves int
}

func (o *ownCheckpoints) Save(ctx context.Context, shard, position string) error {
	o.saves++
	return o.MemoryCheckpoints.Save(ctx, shard, position)
}

func (o *ownCheckpoints) Owns(_ string, keys map[string]streams.AttributeValue) bool {
	id, _ := keys["_id"].(*streams.AttributeValueMemberS)
	return id != nil && id.Value == "own"
}

func TestReaderKeepsItsCheckpointsOwnWritesFromTheHandler(t *testing.T) {
	f := &fakeStreams{}
	f.add("s", "", "1")
	f.mu.Lock()
	s := f.shard("s")
	s.records = append(s.records, record("2", "own"), record("3", "own"), record("4", "own"), record("5", "k5"))
	f.mu.Unlock()
	cp := &ownCheckpoints{MemoryCheckpoints: NewMemoryCheckpoints()}
	seqs, err := runUntil(t, newFakeReader(t, f, cp), 2, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"1", "5"}, seqs, "the checkpoint's own records are not handed")
	require.Equal(t, 2, cp.saves, "a batch of its own records alone saves nothing (batches of 2: [1 own] [own own] [5])")
	positions, _ := cp.Load(context.Background())
	require.Equal(t, "5", positions["s"])
}

func TestNewReaderRefusesBadOptions(t *testing.T) {
	f := &fakeStreams{}
	for _, tt := range []struct {
		name string
		opts ReaderOptions
	}{
		{"no table", ReaderOptions{}},
		{"negative poll", ReaderOptions{Table: "t", Poll: -time.Second}},
		{"limit above 1000", ReaderOptions{Table: "t", Limit: 1001}},
	} {
		_, err := NewReader(f, fakeTable{}, tt.opts)
		require.ErrorIs(t, err, ryno.ErrInvalid, tt.name)
	}
	_, err := NewReader(nil, fakeTable{}, ReaderOptions{Table: "t"})
	require.ErrorIs(t, err, ryno.ErrInvalid)
	r, err := NewReader(f, fakeTable{}, ReaderOptions{Table: "t"})
	require.NoError(t, err)
	require.ErrorIs(t, r.Run(context.Background(), nil), ryno.ErrInvalid)
	require.Zero(t, f.reads, "nothing read")
}
