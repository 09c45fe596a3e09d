package protocol

import (
	"io"
	"slices"
	"time"

	"github.com/limcheck/limcheck/oracle"
)

// Protocol is the protocol version this client and Serve speak, as a hello
// states it.
//
// spec PROTO-11: "The protocol is versioned by the hello's protocol"
const Protocol = "limcheck-port/3"

// Hello is a port's first line: who it is and what it implements.
//
// spec PROTO-2: "Before reading anything, the port writes one hello line"
type Hello struct {
	Protocol   string             `json:"protocol"`
	Name       string             `json:"name"`
	Version    string             `json:"version"`
	Components []oracle.Component `json:"components"`
}

// PortOptions bound a port's run. The zero value takes every default.
type PortOptions struct {
	// HandshakeTimeout bounds the wait for the hello; 0 means 60s (a JVM,
	// npm run or a version manager's shim on a busy machine can take more
	// than 10s to start; a longer wait costs a healthy port nothing).
	HandshakeTimeout time.Duration
	// RequestTimeout bounds the wait for the oldest unanswered request's
	// reply; 0 means 10s.
	RequestTimeout time.Duration
	// Deadline, if set, bounds the whole conversation: the handshake, the
	// requests and the wait for the port's exit. Reaching it is a
	// *judge.DeadlineError, not a break.
	Deadline time.Time
	// Window is the most requests in flight; 0 (or more than 1024,
	// PROTO-7's bound) means 1024.
	Window int
	// ExitTimeout bounds the wait, once the port's stdin is closed, for
	// the port to exit and its stdout to end; 0 means 5s.
	ExitTimeout time.Duration
}

// The protocol's limits.
//
// spec PROTO-1: "at most 1 MiB"
// spec PROTO-7: "it may send up to 1024 requests before it reads a reply"
const (
	maxLine    = 1 << 20
	maxWindow  = 1024
	stderrKeep = 64 << 10
)

func (o PortOptions) withDefaults() PortOptions {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 60 * time.Second
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 10 * time.Second
	}
	if o.Window <= 0 || o.Window > maxWindow {
		o.Window = maxWindow
	}
	if o.ExitTimeout <= 0 {
		o.ExitTimeout = 5 * time.Second
	}
	return o
}

// transport is the port's end of the conversation: a process's pipes, or
// an in-process Serve's.
type transport struct {
	stdin   io.WriteCloser
	stdout  io.Reader
	stderr  io.Reader       // nil: none
	kill    func()          // stops the port (its whole process group) at once; idempotent
	exited  <-chan exitInfo // receives once when the port ends; nil: never
	command string          // the command a process port runs; "" in process
}

// exitInfo is how a port ended.
type exitInfo struct {
	ok   bool   // exit status 0
	how  string // "exit status 3", "signal: killed"
	code int    // the exit status, -1 when a signal ended the port
}

// Port is a conversation with a running port (PROTO-1..PROTO-9). It is a
// judge.Runner. A Port is not safe for concurrent use; once broken (or past its
// deadline) it stays so and every later call returns the same
// *judge.BrokenError (or *judge.DeadlineError).
type Port struct {
	hello   Hello
	opt     PortOptions
	tr      transport
	out     chan []byte   // request chunks, to the writer goroutine
	free    chan []byte   // written chunks, from the writer goroutine, to reuse
	events  chan []event  // replies and the end of stdout, from the reader goroutine, in batches
	evq     []event       // the rest of the last batch received, not yet handled
	evBatch []event       // the batch evq is the rest of, to hand back once handled
	evFree  chan []event  // handled batches, back to the reader to reuse
	stderr  *tail         // the port's stderr
	seq     int64         // the last seq sent
	nextIn  int64         // the seq the next reply must carry
	insts   instances     // the inst of each trace's instances
	failed  error         // sticky: the *judge.BrokenError or *judge.DeadlineError that stopped the port
	dead    chan struct{} // closed when the port is killed: the reader stops
	drained chan struct{} // closed when the port's stderr ended
	exit    *exitInfo     // how the port ended, once it did
	closed  bool
}

// Hello returns the port's hello.
func (p *Port) Hello() Hello { return p.hello }

// Name implements judge.Runner: the hello's name and version.
func (p *Port) Name() string {
	if p.hello.Version == "" {
		return p.hello.Name
	}
	return p.hello.Name + " " + p.hello.Version
}

// Implements implements judge.Runner: the components the hello claims.
func (p *Port) Implements(c oracle.Component) bool { return slices.Contains(p.hello.Components, c) }

// lastStderr returns the last bytes the port wrote on stderr.
func (p *Port) lastStderr() string { return p.stderr.last(stderrKeep) }

// WroteStderr reports whether the port has written anything on its stderr.
// After Close it counts all of it: Close kills the port's group, so its
// stderr ends as soon as the reader has read what is left, and when
// nothing was counted yet this waits for that end (at most ExitTimeout,
// for a process outside the group that holds the stream open). Before
// Close, stderr is read as it comes, so lines the port wrote may not be
// counted yet.
func (p *Port) WroteStderr() bool {
	if p.stderr.total() == 0 && p.closed {
		select {
		case <-p.drained:
		case <-time.After(p.opt.ExitTimeout):
		}
	}
	return p.stderr.total() > 0
}
