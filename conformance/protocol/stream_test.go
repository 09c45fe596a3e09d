package protocol

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// relTraces returns n lim traces of one op, trace k releasing from + k.
func relTraces(from, n int) []oracle.Trace {
	var ts []oracle.Trace
	for k := range n {
		ts = append(ts, oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{{Kind: oracle.LimRel, N: oracle.I(int64(from + k))}}})
	}
	return ts
}

// slicesOf returns a stream's next over the given slices, counting its
// calls, and recording in doneAt the traces done (by *done) at each call.
func slicesOf(sl [][]oracle.Trace, done *int, doneAt *[]int) func() []oracle.Trace {
	return func() []oracle.Trace {
		*doneAt = append(*doneAt, *done)
		if len(sl) == 0 {
			return nil
		}
		s := sl[0]
		sl = sl[1:]
		return s
	}
}

// TestStreamIsOneConversationAcrossSlices: RunStream runs every slice's
// traces in order with indexes counted over the stream, each run as
// RunTraces of all of them at once runs it; and, with a window larger
// than a slice, it takes the next slice before any trace of the last is
// done (the port is never idle between slices), while with a window of
// one it cannot.
func TestStreamIsOneConversationAcrossSlices(t *testing.T) {
	sizes := []int{3, 1, 5, 300, 2}
	var sl [][]oracle.Trace
	var all []oracle.Trace
	for _, n := range sizes {
		sl = append(sl, relTraces(len(all), n))
		all = append(all, sl[len(sl)-1]...)
	}
	ref, err := ServePipe(oracle.Model{}, Hello{}, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	var want []judge.TraceRun
	if err := ref.RunTraces(all, func(_ int, run judge.TraceRun) { want = append(want, run) }); err != nil {
		t.Fatal(err)
	}
	ref.Close() //nolint:errcheck // in process
	for _, window := range []int{1, 7, maxWindow} {
		p, err := ServePipe(oracle.Model{}, Hello{}, waits(PortOptions{Window: window}))
		if err != nil {
			t.Fatal(err)
		}
		var got []judge.TraceRun
		var doneAt []int
		done := 0
		err = p.RunStream(slicesOf(sl, &done, &doneAt), func(i int, run judge.TraceRun) {
			if i != done {
				t.Errorf("window %d: each(%d, ...) as call %d, want the stream's indexes in order", window, i, done)
			}
			got = append(got, run)
			done++
		})
		if err != nil {
			t.Fatalf("window %d: RunStream: %v", window, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("window %d: RunStream's runs differ from RunTraces' of the same traces (-want +got):\n%s", window, diff)
		}
		if len(doneAt) != len(sizes)+1 {
			t.Errorf("window %d: next called %d times, want %d (each slice and the end)", window, len(doneAt), len(sizes)+1)
		}
		if window == maxWindow && doneAt[1] != 0 {
			t.Errorf("window %d: the second slice was taken once %d traces of the first were done, want 0: the window runs on", window, doneAt[1])
		}
		if window == 1 && doneAt[1] != sizes[0] {
			t.Errorf("window 1: the second slice was taken once %d traces were done, want %d", doneAt[1], sizes[0])
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestStreamBreakNamesTheTraceInTheStream: a port that stops answering in
// the second slice breaks with the trace's index in the stream, every
// trace before it reported, none after.
func TestStreamBreakNamesTheTraceInTheStream(t *testing.T) {
	const breakAt = 8 // requests 7, 8, 9 are trace 2's open, op and close: the first trace of the second slice
	p, err := fakePort(t, PortOptions{}, echoModel(func(n int, _ string, rep []byte) (string, bool) {
		if n == breakAt {
			return "", true
		}
		return string(rep) + "\n", false
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close() //nolint:errcheck // broken
	var doneAt []int
	done := 0
	err = p.RunStream(slicesOf([][]oracle.Trace{relTraces(0, 2), relTraces(2, 2)}, &done, &doneAt), func(i int, _ judge.TraceRun) { done++ })
	var be *judge.BrokenError
	if !errors.As(err, &be) || be.Trace != 2 || be.Op != 0 || done != 2 {
		t.Errorf("RunStream on a port that stops at request %d: %v (trace %v), %d traces reported; want a break at trace 2 op 0 of the stream, 2 reported", breakAt, err, be, done)
	}
}
