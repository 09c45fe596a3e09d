package search

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// GenFuzzTrace returns trace index of a fuzz run with seed on component c:
// gen.TraceSeeded(c) drawn from a seed mixed from seed and index, so
// a trace depends on nothing else (not the batch size, not the duration).
// It panics only if the oracle's generator cannot draw a trace, a bug.
func GenFuzzTrace(c oracle.Component, seed uint64, index int) oracle.Trace {
	t, _ := genFuzzTrace(c, seed, index)
	return t
}

// genFuzzTrace is GenFuzzTrace with the model's outcome of the trace.
func genFuzzTrace(c oracle.Component, seed uint64, index int) (oracle.Trace, oracle.Outcome) {
	return gen.TraceSeeded(c, mix(seed, uint64(index)))
}

// mix is splitmix64's output function applied to the index-th state of a
// generator seeded with seed.
func mix(seed, index uint64) uint64 {
	z := seed + (index+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// genBatch is a batch of generated traces with the model's outcomes.
type genBatch struct {
	start  int
	traces []oracle.Trace   // as generated
	sent   []oracle.Trace   // as sent: no ops when the model refuses the config
	want   []oracle.Outcome // the model's outcomes
	err    error            // a generator or model bug
	done   chan struct{}    // closed once the fields are set
}

// cut returns how many of the n traces of b from from to run: up to the
// one whose ops bring the count to left, or all n when left <= 0 (no
// bound).
func (b *genBatch) cut(from, n, left int) int {
	if left <= 0 {
		return n
	}
	for i, w := range b.want[from : from+n] {
		left -= len(w.Results)
		if left <= 0 {
			return i + 1
		}
	}
	return n
}

// generator generates batches ahead of the runner on parallel workers and
// hands them out in order.
type generator struct {
	ordered chan *genBatch
	quit    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup

	comps            []oracle.Component
	seed             uint64
	size, isolation  int
	bound            int          // the run's ops bound (0: none)
	genOps, genTrace atomic.Int64 // the ops and traces generated so far
	nextStart        int          // the start of the batch next hands out next (its caller's)
}

// startGenerator starts generating batches of size traces, trace i of
// component comps[i%len(comps)], every isolation-th a twin (0: none), for a
// run of at most bound ops (0: no bound).
func startGenerator(comps []oracle.Component, seed uint64, size, isolation, bound int) *generator {
	workers := max(runtime.GOMAXPROCS(0), 1)
	g := &generator{ordered: make(chan *genBatch, workers+1), quit: make(chan struct{}),
		comps: comps, seed: seed, size: size, isolation: isolation, bound: bound}
	jobs := make(chan *genBatch)
	g.wg.Add(1 + workers)
	go func() { // the dispatcher: batches in order, at most cap(ordered) ahead
		defer g.wg.Done()
		defer close(jobs)
		for start := 0; ; start += size {
			if g.enough(start) {
				close(g.ordered) // next generates any further batch itself
				return
			}
			b := &genBatch{start: start, done: make(chan struct{})}
			select {
			case g.ordered <- b:
			case <-g.quit:
				return
			}
			select {
			case jobs <- b:
			case <-g.quit:
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer g.wg.Done()
			for b := range jobs {
				b.generate(comps, seed, size, isolation)
				g.genOps.Add(int64(b.ops()))
				g.genTrace.Add(int64(len(b.want)))
				close(b.done)
			}
		}()
	}
	return g
}

// enough reports whether the batches before start carry, at the mean ops
// per trace generated so far, a twentieth more ops than the run's bound:
// generating further ahead would be work the run throws away (at the end of
// a run of 20,000 ops, the batches queued ahead held a third as many again).
func (g *generator) enough(start int) bool {
	traces := g.genTrace.Load()
	return g.bound > 0 && traces > 0 && float64(start)*float64(g.genOps.Load())/float64(traces) >= 1.05*float64(g.bound)
}

// next returns the next batch, once generated: the workers', or, past
// what they generated ahead, one it generates itself (the same traces:
// trace i depends only on the seed and i).
func (g *generator) next() *genBatch {
	b, ok := <-g.ordered
	if ok {
		<-b.done
	} else {
		b = &genBatch{start: g.nextStart}
		b.generate(g.comps, g.seed, g.size, g.isolation)
	}
	g.nextStart = b.start + g.size
	return b
}

// ops returns the ops of b's traces, as an ops bound counts them.
func (b *genBatch) ops() int {
	n := 0
	for _, w := range b.want {
		n += len(w.Results)
	}
	return n
}

// stop stops the workers and waits for them.
func (g *generator) stop() {
	g.once.Do(func() {
		close(g.quit)
		g.wg.Wait()
	})
}

// generate fills b with size traces from b.start and their outcomes.
func (b *genBatch) generate(comps []oracle.Component, seed uint64, size, isolation int) {
	defer func() {
		if p := recover(); p != nil {
			b.err = fmt.Errorf("search: fuzz: generating trace %d of seed %d: %v (a bug in the oracle's generators)", b.start+len(b.traces), seed, p)
		}
	}()
	b.traces = make([]oracle.Trace, 0, size)
	b.sent = make([]oracle.Trace, 0, size)
	b.want = make([]oracle.Outcome, 0, size)
	for i := b.start; i < b.start+size; i++ {
		c := comps[i%len(comps)]
		t, want := genFuzzTrace(c, seed, i) // want: the model's outcome, computed generating t
		// Let a waiting goroutine have the P: with a worker on every P,
		// the protocol's goroutines (a reply read, the next requests
		// written) would otherwise wait for a preemption, up to 10ms,
		// while the port idles. A trace is tens of µs; a yield ~100ns.
		runtime.Gosched()
		sent := t
		if want.Open != "" {
			sent.Ops = []oracle.Op{} // a refused config runs no op (VEC-11)
		}
		sent.Twin = isTwin(c, i/len(comps), isolation) && want.Open == ""
		b.traces = append(b.traces, t)
		b.sent = append(b.sent, sent)
		b.want = append(b.want, want)
	}
}

// isTwin reports whether the n-th trace of component c in a run (trace i
// is the i/len(comps)-th of its component) runs as a twin trace when every
// isolation-th does (FuzzOptions.Isolation): lim has no instance state, so
// its traces never do.
func isTwin(c oracle.Component, n, isolation int) bool {
	return isolation > 0 && c != oracle.Lim && n%isolation == isolation-1
}
