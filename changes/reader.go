package changes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// StreamsAPI is the part of the DynamoDB Streams API a Reader uses;
// *dynamodbstreams.Client has it.
type StreamsAPI interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// TableAPI describes a table, to find its stream; *dynamodb.Client and every
// ryno.DynamoDBAPI have it.
type TableAPI interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// Handler handles records a Reader read from one shard of the stream of table, in
// their order, and returns how many it handled: when it fails, records[n] failed
// and none after it was handled. Completer.Stream is one; Changes makes one of a
// function of decoded changes.
type Handler func(ctx context.Context, table string, records []streams.Record) (n int, err error)

// Changes returns a Handler that decodes each record with d and hands its changes
// (none for the store's bookkeeping) to handle, record after record.
func Changes(d *Decoder, handle func(ctx context.Context, cs []Change) error) Handler {
	return func(ctx context.Context, table string, records []streams.Record) (int, error) {
		for i, r := range records {
			cs, err := d.Stream(table, r)
			if err == nil && len(cs) > 0 {
				err = handle(ctx, cs)
			}
			if err != nil {
				return i, fmt.Errorf("changes: record %d of %d: %w", i, len(records), err)
			}
		}
		return len(records), nil
	}
}

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// Table is the table whose stream the Reader reads, such as the Entities of
	// tables.Names. It must have a stream (`ryno migrate up --streams`).
	Table string
	// Checkpoints keeps, for each shard, the last record handled. Without it the
	// Reader starts from the oldest record the stream keeps (24 hours) each time it
	// runs. See CheckpointsIn.
	Checkpoints Checkpoints
	// Poll is the wait after a read of an open shard that returned nothing, and
	// between two looks for new shards. Default one second: DynamoDB Streams serves
	// each shard at most five reads a second, shared by every reader of the stream.
	Poll time.Duration
	// Limit bounds the records of one GetRecords, at most 1,000 (the default).
	Limit int
}

// Reader reads the stream of one table of a store through the DynamoDB Streams
// API: it lists the stream's shards, reads each with GetRecords from where its
// checkpoint says, a parent shard to its end before its children (so the records
// of one item come in order across a shard split), finds new shards as DynamoDB
// opens them, and hands each batch of records to a Handler.
//
// Delivery is at least once: a shard's checkpoint moves past a batch only after the
// handler handled it, so a Reader cut off, or whose handler failed, hands the
// records after the last checkpoint again when it runs next. Make the handler
// idempotent (each Change carries the entity's Version and the record's
// SequenceNumber). A checkpoint kept in the store (CheckpointsIn) moves with a write
// that a reader of that table's stream would read back: the Reader keeps those
// records from its handler and writes no checkpoint for them alone.
type Reader struct {
	streams StreamsAPI
	tables  TableAPI
	opts    ReaderOptions
}

// NewReader returns a Reader of the stream of opts.Table.
func NewReader(streamsAPI StreamsAPI, tableAPI TableAPI, opts ReaderOptions) (*Reader, error) {
	switch {
	case streamsAPI == nil || tableAPI == nil:
		return nil, invalid("NewReader", "", "needs a Streams client and a DynamoDB client")
	case opts.Table == "":
		return nil, invalid("ReaderOptions.Table", "", "must name a table")
	case opts.Poll < 0:
		return nil, invalid("ReaderOptions.Poll", opts.Poll.String(), "must not be negative")
	case opts.Limit < 0 || opts.Limit > maxRecords:
		return nil, invalid("ReaderOptions.Limit", fmt.Sprint(opts.Limit), fmt.Sprintf("must be between 1 and %d", maxRecords))
	}
	if opts.Poll == 0 {
		opts.Poll = time.Second
	}
	if opts.Limit == 0 {
		opts.Limit = maxRecords
	}
	if opts.Checkpoints == nil {
		opts.Checkpoints = NewMemoryCheckpoints()
	}
	return &Reader{streams: streamsAPI, tables: tableAPI, opts: opts}, nil
}

// maxRecords is the most records one GetRecords returns.
const maxRecords = 1000

// Run reads the stream and hands its records to handle until ctx ends, when it
// returns nil, or until a request or handle fails, when it returns that error
// (after the other shards' readers stopped). Run it again to go on: it starts from
// the checkpoints.
func (r *Reader) Run(ctx context.Context, handle Handler) error {
	if handle == nil {
		return invalid("Run", "", "needs a Handler")
	}
	arn, err := r.streamARN(ctx)
	if err != nil {
		return err
	}
	done, err := r.opts.Checkpoints.Load(ctx)
	if err != nil {
		return fmt.Errorf("changes: load checkpoints: %w", err)
	}
	run := &streamRun{Reader: r, arn: arn, handle: handle, positions: done, started: map[string]bool{}}
	return run.loop(ctx)
}

// streamARN is the ARN of the table's latest stream.
func (r *Reader) streamARN(ctx context.Context) (string, error) {
	out, err := r.tables.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.opts.Table)})
	if err != nil {
		return "", fmt.Errorf("changes: describe %s: %w", r.opts.Table, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" || out.Table.StreamSpecification == nil || !aws.ToBool(out.Table.StreamSpecification.StreamEnabled) {
		return "", invalid("ReaderOptions.Table", r.opts.Table, "has no stream; turn it on with `ryno migrate up --streams`")
	}
	return arn, nil
}

// streamRun is one Run: the shards being read and their positions.
type streamRun struct {
	*Reader
	arn    string
	handle Handler

	mu        sync.Mutex
	positions map[string]string // shard ID to the last sequence number handled, or shardEnd
	started   map[string]bool   // shards whose reader runs or ran in this Run
}

// loop looks for shards to read, starts a reader for each that is ready, and
// waits a poll between looks, until ctx ends or a shard's reader fails.
func (s *streamRun) loop(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		shards, err := s.shards(ctx)
		if err != nil {
			cancel(err)
			break
		}
		for _, id := range s.ready(shards) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.readShard(ctx, id); err != nil {
					cancel(err)
				}
			}()
		}
		if !sleep(ctx, s.opts.Poll) {
			break
		}
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// shards lists the shards of the stream, every page.
func (s *streamRun) shards(ctx context.Context) ([]streams.Shard, error) {
	var all []streams.Shard
	var from *string
	for {
		out, err := s.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(s.arn), ExclusiveStartShardId: from})
		if err != nil {
			return nil, fmt.Errorf("changes: describe stream of %s: %w", s.opts.Table, err)
		}
		all = append(all, out.StreamDescription.Shards...)
		from = out.StreamDescription.LastEvaluatedShardId
		if from == nil {
			return all, nil
		}
	}
}

// ready returns the shards to start reading now: not read to their end, not
// started, and whose parent, if the stream still lists it, was read to its end.
func (s *streamRun) ready(shards []streams.Shard) []string {
	listed := make(map[string]bool, len(shards))
	for _, sh := range shards {
		listed[aws.ToString(sh.ShardId)] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, sh := range shards {
		id, parent := aws.ToString(sh.ShardId), aws.ToString(sh.ParentShardId)
		if s.started[id] || s.positions[id] == shardEnd {
			continue
		}
		if parent != "" && listed[parent] && s.positions[parent] != shardEnd {
			continue // the parent's records of an item come first
		}
		s.started[id] = true
		ids = append(ids, id)
	}
	return ids
}

// readShard reads one shard from its checkpoint to its end, or until ctx ends.
func (s *streamRun) readShard(ctx context.Context, id string) error {
	iter, err := s.iterator(ctx, id)
	if err != nil {
		return err
	}
	for iter != nil {
		out, err := s.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(int32(s.opts.Limit))})
		var expired *streams.ExpiredIteratorException
		switch {
		case errors.As(err, &expired):
			if iter, err = s.iterator(ctx, id); err != nil {
				return err
			}
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("changes: read shard %s of %s: %w", id, s.opts.Table, err)
		}
		if err := s.deliver(ctx, id, out.Records); err != nil {
			return err
		}
		iter = out.NextShardIterator
		if len(out.Records) == 0 && iter != nil && !sleep(ctx, s.opts.Poll) {
			return nil
		}
	}
	return s.checkpoint(ctx, id, shardEnd)
}

// iterator returns an iterator of shard id from its checkpoint: after the last
// record handled, or at the oldest record the stream keeps.
func (s *streamRun) iterator(ctx context.Context, id string) (*string, error) {
	s.mu.Lock()
	after := s.positions[id]
	s.mu.Unlock()
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.arn), ShardId: aws.String(id), ShardIteratorType: streams.ShardIteratorTypeTrimHorizon}
	if after != "" {
		in.ShardIteratorType, in.SequenceNumber = streams.ShardIteratorTypeAfterSequenceNumber, aws.String(after)
	}
	out, err := s.streams.GetShardIterator(ctx, in)
	var trimmed *streams.TrimmedDataAccessException
	if errors.As(err, &trimmed) && after != "" {
		// The records after the checkpoint are gone (kept 24 hours): start at the oldest.
		in.ShardIteratorType, in.SequenceNumber = streams.ShardIteratorTypeTrimHorizon, nil
		out, err = s.streams.GetShardIterator(ctx, in)
	}
	if err != nil {
		return nil, fmt.Errorf("changes: iterator of shard %s of %s: %w", id, s.opts.Table, err)
	}
	return out.ShardIterator, nil
}

// deliver hands records to the handler, without the checkpoint store's own
// writes, and moves the shard's checkpoint past what it handled.
func (s *streamRun) deliver(ctx context.Context, id string, records []streams.Record) error {
	if len(records) == 0 {
		return nil
	}
	last := sequenceOf(records[len(records)-1])
	theirs := s.notOwn(records)
	if len(theirs) == 0 {
		s.setPosition(id, last) // the checkpoint's own writes: moving it would write one more
		return nil
	}
	n, err := s.handle(ctx, s.opts.Table, theirs)
	if n > 0 && n <= len(theirs) {
		handled := last
		if n < len(theirs) {
			handled = sequenceOf(theirs[n-1])
		}
		if cerr := s.checkpoint(ctx, id, handled); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("changes: handle shard %s of %s: %w", id, s.opts.Table, err)
	}
	return nil
}

// notOwn returns records without those of the checkpoint store's own item.
func (s *streamRun) notOwn(records []streams.Record) []streams.Record {
	own, ok := s.opts.Checkpoints.(Owner)
	if !ok {
		return records
	}
	theirs := records[:0:0]
	for _, r := range records {
		if r.Dynamodb == nil || !own.Owns(s.opts.Table, r.Dynamodb.Keys) {
			theirs = append(theirs, r)
		}
	}
	return theirs
}

// sequenceOf is the sequence number of r.
func sequenceOf(r streams.Record) string {
	if r.Dynamodb == nil {
		return ""
	}
	return aws.ToString(r.Dynamodb.SequenceNumber)
}

func (s *streamRun) setPosition(id, seq string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.positions[id] = seq
}

// checkpoint records that shard id was handled up to seq.
func (s *streamRun) checkpoint(ctx context.Context, id, seq string) error {
	s.setPosition(id, seq)
	if err := s.opts.Checkpoints.Save(ctx, id, seq); err != nil {
		if ctx.Err() != nil {
			return nil // the next run starts from the checkpoint before: at least once
		}
		return fmt.Errorf("changes: save checkpoint of shard %s: %w", id, err)
	}
	return nil
}

// sleep waits d, and reports false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
