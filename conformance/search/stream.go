package search

import (
	"errors"
	"fmt"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// fuzzRun is a Fuzz run's state between its chunks and streams.
type fuzzRun struct {
	r     judge.Runner
	opt   FuzzOptions
	g     *generator
	start time.Time
	pace  pacer
	rep   FuzzReport

	b       *genBatch // the batch chunks are cut from
	from    int       // its first trace not yet sent
	sentOps int       // the ops of every trace sent, as the ops bound counts them

	// The stream in progress: its chunks not yet done, in order, the
	// traces it handed out and those done (each's calls), and when its
	// last chunk was done.
	chunks   []chunk
	handed   int
	calls    int
	lastDone time.Time

	fail   *foundTrace // the first failing trace, once found: the stream takes no further chunk
	genErr error       // a generator bug, met taking a chunk
}

// chunk is traces from..from+n of a generated batch, handed to the runner
// at once: the stream's traces at.. .
type chunk struct {
	b           *genBatch
	from, n, at int
	sent        time.Time
}

// over reports whether the run stops at now: its ops or duration bound
// reached, or (timedOut) its deadline passed.
func (f *fuzzRun) over(now time.Time) (stop, timedOut bool) {
	switch o := f.opt; {
	case o.Ops > 0 && f.sentOps >= o.Ops, o.Duration > 0 && now.Sub(f.start) >= o.Duration:
		return true, false
	case o.pastDeadline(now):
		return true, true
	}
	return false, false
}

// take cuts the next chunk, at most the pacer's size at now and up to the
// trace that reaches the ops bound, and counts its ops as sent.
func (f *fuzzRun) take(now time.Time) (chunk, error) {
	if f.b == nil || f.from == len(f.b.sent) {
		if f.b, f.from = f.g.next(), 0; f.b.err != nil {
			return chunk{}, f.b.err
		}
	}
	n := f.b.cut(f.from, min(f.pace.size(now), len(f.b.sent)-f.from), f.opt.Ops-f.sentOps)
	c := chunk{b: f.b, from: f.from, n: n, at: f.handed, sent: now}
	for _, w := range f.b.want[f.from : f.from+n] {
		f.sentOps += len(w.Results)
	}
	f.from += n
	f.handed += n
	return c, nil
}

// stream runs one stream of chunks through the runner: the first always,
// further ones while no trace failed, the run is not over and the pacer
// allows whole chunks. It returns the runner's error with the index in the
// stream of the trace in flight.
func (f *fuzzRun) stream() (int, error) {
	f.chunks, f.handed, f.calls, f.lastDone = f.chunks[:0], 0, 0, time.Now()
	first := true
	next := func() []oracle.Trace {
		now := time.Now()
		if !first {
			if stop, _ := f.over(now); stop || f.fail != nil || f.opt.stopped() || f.pace.size(now) < f.pace.max {
				return nil
			}
		}
		first = false
		c, err := f.take(now)
		if err != nil {
			f.genErr = err
			return nil
		}
		f.chunks = append(f.chunks, c)
		return c.b.sent[c.from : c.from+c.n]
	}
	inFlight, err := runStream(f.r, next, f.each)
	if err == nil && f.calls != f.handed {
		err = fmt.Errorf("search: %s ran %d of %d traces without an error", f.r.Name(), f.calls, f.handed)
	}
	return inFlight, err
}

// each checks the run of trace i of the stream and counts it in the
// report, up to the first failing trace; it closes a chunk whose last
// trace it is (the pacer's measure, Progress).
func (f *fuzzRun) each(i int, run judge.TraceRun) {
	if i != f.calls || i >= f.handed {
		return // a runner breaking its contract; caught in stream
	}
	f.calls++
	c := f.chunks[0]
	j := c.from + i - c.at
	if f.fail == nil {
		f.check(c.b, j, run)
	}
	if i == c.at+c.n-1 {
		now := time.Now()
		f.pace.ran(c.n, now.Sub(later(c.sent, f.lastDone)))
		f.lastDone, f.chunks = now, f.chunks[1:]
		f.rep.Elapsed = time.Since(f.start)
		f.progress()
	}
}

// check counts the run of trace j of b in the report; a failing one is
// the run's fail.
func (f *fuzzRun) check(b *genBatch, j int, run judge.TraceRun) {
	rep := &f.rep
	rep.Traces++
	ops := len(b.want[j].Results)
	twin := b.sent[j].Twin
	if twin {
		rep.Twinned++
	}
	switch {
	case run.Skipped != "":
		if twin {
			rep.TwinnedSkipped++
		}
		rep.Skipped++
		rep.SkippedOps += ops
		if rep.FirstSkip == "" {
			rep.FirstSkip = judge.CutText(run.Skipped, MaxText)
		}
	case judge.Fails(b.sent[j], b.want[j], run):
		rep.Ops += ops
		f.fail = &foundTrace{index: b.start + j, orig: b.traces[j], sent: b.sent[j], run: cutRun(run)}
	default:
		rep.Ops += ops
	}
}

// progress tells opt.Progress the status.
func (f *fuzzRun) progress() {
	if f.opt.Progress != nil {
		f.opt.Progress(f.rep.FuzzStatus)
	}
}

// traceAt returns the run's index of trace i of the stream, sent and not
// done.
func (f *fuzzRun) traceAt(i int) int {
	for _, c := range f.chunks {
		if i >= c.at && i < c.at+c.n {
			return c.b.start + c.from + i - c.at
		}
	}
	if len(f.chunks) > 0 { // an index no trace sent has: the first not done
		c := f.chunks[0]
		return c.b.start + c.from + f.calls - c.at
	}
	return f.b.start + f.from
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// runStream runs next's slices on r as one stream: r's own RunStream if r
// is a judge.Streamer, else one RunTraces call a slice, its traces'
// indexes counted on over the stream. It returns the error with the index
// in the stream of the trace in flight (a BrokenError's Trace).
func runStream(r judge.Runner, next func() []oracle.Trace, each func(int, judge.TraceRun)) (int, error) {
	if s, ok := r.(judge.Streamer); ok {
		err := s.RunStream(next, each)
		return brokenTrace(err), err
	}
	for at := 0; ; {
		ts := next()
		if len(ts) == 0 {
			return 0, nil
		}
		if err := r.RunTraces(ts, func(i int, run judge.TraceRun) { each(at+i, run) }); err != nil {
			return at + brokenTrace(err), err
		}
		at += len(ts)
	}
}

// brokenTrace returns the index of the trace a *judge.BrokenError
// names (0 when it names none).
func brokenTrace(err error) int {
	var be *judge.BrokenError
	if errors.As(err, &be) && be.Trace >= 0 {
		return be.Trace
	}
	return 0
}
