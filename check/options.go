package check

// Options configures a check (ryno.Client.Check).
type Options struct {
	// Repair deletes every orphan found and finishes every trace.
	Repair bool
	// Segments splits the scan of each table into that many segments read in
	// parallel (DynamoDB's parallel scan), for large tables. Default 1; at most
	// MaxSegments. Batch requests stay within ryno.Options.MaxConcurrency in all.
	Segments int
	// OnOrphan, when set, is called for each orphan found.
	OnOrphan func(Orphan)
	// OnTrace, when set, is called for each trace found.
	OnTrace func(Trace)
	// Progress, when set, is called after each page of entries.
	Progress func(Progress)
}

// MaxSegments bounds Options.Segments.
const MaxSegments = 1000

// Progress counts what a check has done so far.
type Progress struct {
	Relationships int // relationship entries scanned
	IndexEntries  int // index entries scanned
	Orphans       int // orphans found
	Repaired      int // orphans deleted
	Kept          int // orphans not deleted, as their entity was created meanwhile
	Traces        int // traces of writes cut off found
	Finished      int // traces finished
}
