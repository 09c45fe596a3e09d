package judge

import (
	"errors"
	"time"

	"github.com/limcheck/limcheck/oracle"
)

// Runner runs traces on an implementation: a port over the protocol
// (conformance/protocol's Port) or a Go subject in process
// ([SubjectRunner]). [RunCases], and conformance/search's Fuzz and
// Shrink, work on any Runner.
type Runner interface {
	// Name names the implementation in reports.
	Name() string
	// Implements reports whether the implementation claims component c.
	Implements(c oracle.Component) bool
	// RunTraces runs ts in order, each on a fresh instance, and calls
	// each(i, run) for every trace i, in order, as its run completes. It
	// returns a *BrokenError when the implementation broke (for a port,
	// PROTO-9), or a *DeadlineError when a port's deadline passed; the
	// trace in flight and those after it get no call.
	RunTraces(ts []oracle.Trace, each func(i int, run TraceRun)) error
}

// Streamer is a Runner that also runs traces as they come, as
// conformance/protocol's Port does: RunStream runs the traces of every
// slice next returns, in order, until next returns an empty one, as one
// pipelined conversation, and calls each(i, run) for trace i of the stream
// (counted from its first trace, over every slice), in order, as its run
// completes. It calls next once it has sent the last slice's traces, while
// they may still be running, so that the implementation is not idle
// between slices; next and each are called on RunStream's goroutine, never
// at once. Its errors are RunTraces', a BrokenError's or DeadlineError's
// Trace an index in the stream; the trace in flight and those after it get
// no call.
type Streamer interface {
	Runner
	RunStream(next func() []oracle.Trace, each func(i int, run TraceRun)) error
}

// TraceRun is what an implementation did with one trace.
type TraceRun struct {
	// Outcome is the outcome of open and the results of the ops that
	// ran: every op, unless Skipped or Fault is set.
	Outcome oracle.Outcome
	// Skipped is set when the implementation declined the trace (its
	// open or an op, PROTO-6): the reason.
	Skipped string
	// Fault is set when the implementation could not apply a request of
	// the trace (PROTO-6): its message. FaultOp is the op's index, -1 for
	// open. Undecodable says that the implementation sent no fault: its
	// result for op FaultOp does not decode, and Fault says why.
	Fault       string
	FaultOp     int
	Undecodable bool
	// BadField and BadValue are set, when Undecodable, where one field
	// of the result holds a value that does not fit it (a ban end past
	// 2^64-1): the field's JSON name and the value sent, as JSON.
	BadField, BadValue string
	// Twin holds, for a twin trace (oracle.Trace.Twin), the results of
	// the ops on its second instance, in order; Outcome holds the
	// first's. Nil for any other trace.
	Twin []oracle.Result
	// Stderr is what a port wrote on stderr while the trace ran (at most
	// its last 4 KiB); empty in process.
	Stderr string
}

// FaultAt says what stopped a run with Fault set, at the op that where
// names (FaultOp's): "fault at WHERE: MESSAGE" for a fault the
// implementation sent, "result of WHERE does not decode: WHY" for a
// result that does not decode (Undecodable).
func (r TraceRun) FaultAt(where string) string {
	if r.Undecodable {
		return "result of " + where + " does not decode: " + r.Fault
	}
	return "fault at " + where + ": " + r.Fault
}

// ErrBroken is wrapped by every *BrokenError.
var ErrBroken = errors.New("port broke the protocol")

// BrokenError says how a port broke the protocol (PROTO-9): the
// diagnosis, the trace and op in flight, and the port's recent stderr.
type BrokenError struct {
	What   string // the diagnosis, one line: "no reply within 10s (hung?)"
	Trace  int    // the index of the trace in flight in its RunTraces call (RunStream: in its stream), or -1 (handshake, shutdown)
	Op     int    // the op in flight within that trace, -1 for open, -2 for none known
	Stderr string // the port's stderr while the trace ran, or its last bytes
}

func (e *BrokenError) Error() string { return "port broke the protocol: " + e.What }

// Unwrap makes errors.Is(err, ErrBroken) hold.
func (e *BrokenError) Unwrap() error { return ErrBroken }

// ErrDeadline is wrapped by every *DeadlineError.
var ErrDeadline = errors.New("protocol: the deadline passed")

// DeadlineError says that a port's deadline (conformance/protocol's
// PortOptions.Deadline), the caller's budget for the whole conversation,
// passed before the conversation ended. It is not a *BrokenError: the
// budget ran out, which a healthy port that is merely slow can cause. The
// port is stopped (its process group killed) and stays unusable; Trace
// and Op name what was in flight, as a BrokenError's do.
type DeadlineError struct {
	Deadline time.Time
	During   string // what was waiting: "the handshake", "the conversation", "the port's exit"
	Trace    int    // the index of the trace in flight in its RunTraces call (RunStream: in its stream), or -1
	Op       int    // the op in flight within that trace, -1 for open, -2 for none known
}

func (e *DeadlineError) Error() string { return "protocol: the deadline passed during " + e.During }

// Unwrap makes errors.Is(err, ErrDeadline) hold.
func (e *DeadlineError) Unwrap() error { return ErrDeadline }
