package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// ErrNotReproduced is returned by Shrink when the trace it starts from does
// not fail when re-run: the implementation is flaky, or fails depends on
// more than the run.
var ErrNotReproduced = errors.New("search: the trace did not fail again when re-run")

// Shrink returns a smallest trace it finds for which fails holds, starting
// from t (for which fails must hold), re-running candidates through r one
// at a time, and the number of runs it took. It first re-runs t (an error
// wrapping ErrNotReproduced when fails no longer holds), then repeats these
// passes until none makes progress or a limit of lim is reached:
//
//   - truncate the ops after the first divergence from the model (or the
//     op that faulted);
//   - delete chunks of ops, halves first, down to single ops;
//   - shift times toward 0: every gate or throttle time by the same
//     amount, a lim_take's now and last together;
//   - simplify each op's arguments: integers toward 0 (0, then a binary
//     search), byte strings shorter (the shortest failing prefix by binary
//     search) and toward "a", key lists shorter (chunks, halves first) and
//     fault rules fewer;
//   - rename: replace a byte string everywhere it occurs in the trace (a
//     key failed on and then checked) by a simpler one, all at once;
//   - simplify the config's fields toward their smallest failing value:
//     first the least of 1 and each 2^k-1, 2^k, 2^k+1 below the value
//     that fails (where a size kept in a narrower integer wraps, the
//     failing values are not an interval; on a trace of more than
//     longOps ops only when the nearest does), then toward 0 as for an
//     op's integers; a smaller value that does not fail alone is tried again
//     with each op deleted (maxif 3 with three passes before the shed
//     becomes maxif 1 with one);
//   - trade a gate release for a maxif one larger (fewer ops, the same
//     places in flight);
//   - halve a gate's ivl and every time together;
//   - move a throttle's window_secs or ban_secs down the ladder together
//     with the times at or past it, by the same amount (short traces only:
//     a purge 2^64-9 ticks after a failure under a window of 2^64-9 keeps
//     its place against the window when both become 3);
//   - last, when no other pass made progress: delete an op and move
//     another to a new place in one candidate (short traces only).
//
// A twin run (twinRuns: at least twinRunMin gate admits in a row at one
// time, each of its own key, placed in a fresh way) is one thing to the
// passes: deleting chunks judges one chunk of each size inside it, and its
// addresses are not simplified one at a time, so that a counterexample
// that needs 1,025 keys in a table shrinks in tens of runs where ddmin's
// single ops alone would take over a thousand.
//
// A candidate the model refuses as malformed (oracle.ErrBadOp), or whose
// config the model opens otherwise than t's, is never sent. Every candidate
// for which fails holds becomes the current trace, so the last trace fails
// was called true on is the one returned. A *judge.BrokenError from r is
// returned with the smallest trace reached so far.
func Shrink(r judge.Runner, t oracle.Trace, fails func(oracle.Trace, judge.TraceRun) bool, lim ShrinkLimits) (oracle.Trace, int, error) {
	s := shrinkTrace(r, t, fails, lim)
	return s.cur, s.runs, s.err
}

// shrinkTrace is Shrink, returning its state at the end: the smallest
// failing trace (t when it did not fail again), the runs, the error and
// why it stopped.
func shrinkTrace(r judge.Runner, t oracle.Trace, fails func(oracle.Trace, judge.TraceRun) bool, lim ShrinkLimits) *shrinker {
	s := &shrinker{r: r, fails: fails, lim: lim, cur: t, tried: map[string]bool{}, judged: map[string]bool{}}
	want, err := oracle.Run(oracle.Model{}, t)
	if err != nil {
		s.err, s.stop = fmt.Errorf("search: shrink: the model refuses the trace: %w", err), ShrinkBroken
		return s
	}
	s.open = want.Open
	run, err := runOne(r, t)
	s.runs++
	switch {
	case err != nil:
		s.err, s.stop = err, ShrinkBroken
		return s
	case !fails(t, run):
		s.err = fmt.Errorf("%w (%s)", ErrNotReproduced, r.Name())
		return s
	}
	s.curRun, s.curWant = run, want
	s.tried[traceKey(t)] = true
	passes := []func() bool{s.truncate, s.deleteChunks, s.shiftTimes, s.halveClock, s.shortenSpans, s.simplifyOps, s.rename, s.simplifyConfig, s.tradeReleases}
	for progress := true; progress && !s.done(); {
		progress = false
		for _, pass := range passes {
			if pass() {
				progress = true
			}
		}
		if !progress && s.deleteAndMove() {
			progress = true
		}
	}
	return s
}

// shortOps is the most ops a trace may have for the passes that try every
// op against every other (withOneOpLess, tradeReleases, deleteAndMove).
const shortOps = 8

// ShrinkStop is why shrinking stopped.
type ShrinkStop string

// The reasons shrinking stops.
const (
	// ShrinkDone: no candidate made progress; the trace is as small as
	// Shrink makes it.
	ShrinkDone ShrinkStop = ""
	// ShrinkBroken: the runner broke (or returned another error).
	ShrinkBroken ShrinkStop = "the runner broke"
	// ShrinkDeadline: the run's deadline (FuzzOptions.Deadline) passed.
	ShrinkDeadline ShrinkStop = "the deadline passed"
	// ShrinkTimeLimit: ShrinkLimits.Deadline (FuzzOptions.ShrinkTime)
	// passed.
	ShrinkTimeLimit ShrinkStop = "the shrink time passed"
	// ShrinkRunLimit: ShrinkLimits.Runs (FuzzOptions.ShrinkRuns) were
	// run.
	ShrinkRunLimit ShrinkStop = "the shrink runs were reached"
	// ShrinkInterrupted: ShrinkLimits.Stop (FuzzOptions.Stop) was
	// closed: limcheck is stopping on a signal.
	ShrinkInterrupted ShrinkStop = "the run was stopped"
)

// ShrinkLimits bound a Shrink; it stops at whichever is reached first.
// The zero value is no bound. Runs is a logical bound: the same port and
// trace shrink to the same result on any machine, however busy; Deadline
// is a wall-clock one, for people who wait on the result.
type ShrinkLimits struct {
	Deadline time.Time // no candidate is run after it (zero: none)
	Runs     int       // the most runs of the port, the first re-run included (0: no bound)
	// Stop, when closed, stops shrinking before the next candidate (nil:
	// never); a candidate that breaks the runner after it closed stops it
	// as ShrinkInterrupted, not ShrinkBroken.
	Stop <-chan struct{}
}

// stopped reports whether l.Stop is closed.
func (l ShrinkLimits) stopped() bool {
	select {
	case <-l.Stop:
		return true
	default:
		return false
	}
}

// runOne runs t alone through r.
func runOne(r judge.Runner, t oracle.Trace) (judge.TraceRun, error) {
	var got judge.TraceRun
	called := false
	err := r.RunTraces([]oracle.Trace{t}, func(i int, run judge.TraceRun) {
		if i == 0 {
			got, called = run, true
		}
	})
	if err == nil && !called {
		err = fmt.Errorf("search: %s returned no run of the trace and no error", r.Name())
	}
	return got, err
}

// shrinker is the state of one Shrink.
type shrinker struct {
	r     judge.Runner
	fails func(oracle.Trace, judge.TraceRun) bool
	lim   ShrinkLimits
	open  oracle.ErrorClass // the model's open of the original trace

	cur     oracle.Trace // the smallest failing trace so far
	curRun  judge.TraceRun
	curWant oracle.Outcome

	tried    map[string]bool // candidates already judged
	judged   map[string]bool // tryOnce's named candidates that did not fail, by the trace's length
	runs     int
	accepted int        // the candidates that became the current trace
	err      error      // the runner broke
	stop     ShrinkStop // why it stopped, once it did
}

// done reports whether shrinking must stop: the runner broke or a limit
// was reached (recorded in s.stop the first time).
func (s *shrinker) done() bool {
	if s.stop == ShrinkDone {
		switch {
		case s.lim.stopped():
			s.stop = ShrinkInterrupted
		case s.err != nil:
			s.stop = ShrinkBroken
		case s.lim.Runs > 0 && s.runs >= s.lim.Runs:
			s.stop = ShrinkRunLimit
		case !s.lim.Deadline.IsZero() && !time.Now().Before(s.lim.Deadline):
			s.stop = ShrinkTimeLimit
		}
	}
	return s.stop != ShrinkDone
}

// try judges cand and makes it the current trace when fails holds.
func (s *shrinker) try(cand oracle.Trace) bool {
	if s.done() {
		return false
	}
	key := traceKey(cand)
	if s.tried[key] {
		return false
	}
	s.tried[key] = true
	want, err := oracle.Run(oracle.Model{}, cand)
	if err != nil || want.Open != s.open {
		return false // not a candidate: malformed, or another kind of open
	}
	run, err := runOne(s.r, cand)
	s.runs++
	if err != nil {
		s.err, s.stop = err, ShrinkBroken
		return false
	}
	if !s.fails(cand, run) {
		return false
	}
	s.cur, s.curRun, s.curWant = cand, run, want
	s.accepted++
	return true
}

// traceKey identifies a trace by its JSON form.
func traceKey(t oracle.Trace) string {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Sprintf("%#v", t)
	}
	return string(b)
}

// edit returns a deep copy of the current trace changed by f.
func (s *shrinker) edit(f func(*oracle.Trace)) oracle.Trace {
	t := cloneTrace(s.cur)
	f(&t)
	return t
}

// cloneTrace returns a copy of t that shares no memory with it (nil and
// empty slices stay as they are: their JSON differs).
func cloneTrace(t oracle.Trace) oracle.Trace {
	if t.Config.Gate != nil {
		g := *t.Config.Gate
		t.Config.Gate = &g
	}
	if t.Config.Throttle != nil {
		th := *t.Config.Throttle
		t.Config.Throttle = &th
	}
	if t.Ops != nil {
		t.Ops = slices.Clone(t.Ops)
	}
	for i := range t.Ops {
		op := &t.Ops[i]
		op.IP, op.Key = cloneBytes(op.IP), cloneBytes(op.Key)
		if op.Keys != nil {
			op.Keys = slices.Clone(op.Keys)
		}
		if op.Faults != nil {
			op.Faults = slices.Clone(op.Faults)
			for j := range op.Faults {
				if op.Faults[j].Keys != nil {
					op.Faults[j].Keys = slices.Clone(op.Faults[j].Keys)
				}
			}
		}
	}
	return t
}

func cloneBytes(b *oracle.Bytes) *oracle.Bytes {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

// divergence returns the index of the op after which the current trace's
// ops cannot matter: the first divergence or the faulting op; ok is false
// when there is none.
func (s *shrinker) divergence() (int, bool) {
	if s.curRun.Fault != "" {
		return s.curRun.FaultOp, true
	}
	d := oracle.Compare(s.cur, s.curWant, s.curRun.Outcome)
	if d == nil {
		return 0, false
	}
	return d.Index, true
}

// truncate drops the ops after the first divergence.
func (s *shrinker) truncate() bool {
	d, ok := s.divergence()
	if !ok {
		return false
	}
	keep := max(min(d+1, len(s.cur.Ops)), 0)
	if keep == len(s.cur.Ops) {
		return false
	}
	return s.try(s.edit(func(t *oracle.Trace) { t.Ops = t.Ops[:keep] }))
}

// deleteChunks deletes runs of ops, halves first, down to single ops
// (ddmin's complements, greedily; on a long trace each chunk once per
// length, tryOnce). Of the chunks of one size that lie
// inside one twin run, it judges until one does not fail, and takes the
// others for the same.
func (s *shrinker) deleteChunks() bool {
	progress := false
	for size := max(len(s.cur.Ops)/2, 1); size >= 1 && len(s.cur.Ops) > 0; size /= 2 {
		twins := s.twinRuns()
		kept := map[int]bool{} // the twin runs (by start) a chunk of this size inside which did not fail
		for i := 0; i < len(s.cur.Ops) && !s.done(); {
			end := min(i+size, len(s.cur.Ops))
			run := twinRunOf(twins, i, end)
			switch {
			case run >= 0 && kept[run]:
				i += size
			case s.tryOnce(fmt.Sprintf("delete %d-%d", i, end), s.edit(func(t *oracle.Trace) { t.Ops = slices.Delete(t.Ops, i, end) })):
				progress = true
				twins = s.twinRuns()
				clear(kept)
			default:
				if run >= 0 {
					kept[run] = true
				}
				i += size
			}
		}
	}
	return progress
}

// twinRunMin is the fewest ops a twin run has: a shorter run of
// interchangeable admits costs little op by op, and a port that tells
// some of its keys apart (a tag kept narrow) is better served by ddmin's
// every single op.
const twinRunMin = 32

// span is the ops [start, end) of a trace.
type span struct{ start, end int }

// twinRuns returns the twin runs of the current trace: the longest runs of
// at least twinRunMin consecutive gate admits at one time, with one
// verdict, each of an address that no other op of the trace names, placed
// in a way (set and way) that no earlier op's result names. Under the
// model they are interchangeable: deleting any k consecutive ones leaves
// the same state, up to the names of keys that no later op reads. That
// a port treats them alike too is the shrinker's guess, not a fact: a
// port that tells two of the keys apart may keep ops a smaller trace
// would not need, never a trace that does not fail.
func (s *shrinker) twinRuns() []span {
	if s.cur.Component != oracle.Gate || len(s.cur.Ops) < twinRunMin || len(s.curWant.Results) < len(s.cur.Ops) {
		return nil
	}
	named := s.names()
	type place struct{ set, way oracle.Num }
	placed := map[place]bool{}
	var runs []span
	start := -1 // the first op of the run being read, or -1
	for i, op := range s.cur.Ops {
		r := s.curWant.Results[i]
		p := place{r.Set, r.Way}
		twin := op.Kind == oracle.Admit && op.IP != nil && named[string(*op.IP)] == 1 && !r.Way.IsZero() && !placed[p]
		if start >= 0 && (!twin || !op.Now.Equal(s.cur.Ops[start].Now) || r.Verdict != s.curWant.Results[start].Verdict) {
			if i-start >= twinRunMin {
				runs = append(runs, span{start, i})
			}
			start = -1
		}
		if twin && start < 0 {
			start = i
		}
		if !r.Way.IsZero() {
			placed[p] = true
		}
	}
	if start >= 0 && len(s.cur.Ops)-start >= twinRunMin {
		runs = append(runs, span{start, len(s.cur.Ops)})
	}
	return runs
}

// names counts the ops' byte strings of the current trace (eachBytes) by
// value.
func (s *shrinker) names() map[string]int {
	n := map[string]int{}
	eachBytes(&s.cur, func(b *oracle.Bytes) { n[string(*b)]++ })
	return n
}

// twinRunOf returns the start of the twin run of runs that holds the ops
// [i, end), or -1 when none does.
func twinRunOf(runs []span, i, end int) int {
	for _, r := range runs {
		if r.start <= i && end <= r.end {
			return r.start
		}
	}
	return -1
}

// inTwinRun reports whether op i of the current trace is in one of runs.
func inTwinRun(runs []span, i int) bool { return twinRunOf(runs, i, i+1) >= 0 }

// shiftTimes moves times toward 0 keeping their differences: a lim_take's
// now and last together, every gate admit's now together, every throttle
// now together; only when all the times shifted have one sign, so that
// each moves toward 0 and none overflows.
func (s *shrinker) shiftTimes() bool {
	progress := false
	switch s.cur.Component {
	case oracle.Lim:
		for i := range s.cur.Ops {
			if s.cur.Ops[i].Kind == oracle.LimTake && s.shiftOps(func(k int) bool { return k == i }, true) {
				progress = true
			}
		}
	case oracle.Gate:
		progress = s.shiftOps(func(k int) bool { return s.cur.Ops[k].Kind == oracle.Admit }, false)
	default:
		progress = s.shiftOps(func(k int) bool { return !s.cur.Ops[k].Now.IsZero() }, false)
	}
	return progress
}

// shiftOps shifts the now (and, with last, the last) of the ops that in
// selects by the same amount toward 0.
func (s *shrinker) shiftOps(in func(int) bool, last bool) bool {
	var nums []oracle.Num
	for k, op := range s.cur.Ops {
		if in(k) {
			nums = append(nums, op.Now)
			if last {
				nums = append(nums, op.Last)
			}
		}
	}
	d, ok := shiftAmount(nums)
	if !ok {
		return false
	}
	return s.try(s.edit(func(t *oracle.Trace) {
		for k := range t.Ops {
			if in(k) {
				t.Ops[k].Now = shiftNum(t.Ops[k].Now, d)
				if last {
					t.Ops[k].Last = shiftNum(t.Ops[k].Last, d)
				}
			}
		}
	}))
}

// shiftAmount returns the signed amount to subtract from every one of nums
// to bring the one nearest 0 to 0: nums must all be set and of one sign.
func shiftAmount(nums []oracle.Num) (numShift, bool) {
	if len(nums) == 0 {
		return numShift{}, false
	}
	var sh numShift
	for i, n := range nums {
		if n.IsZero() {
			return numShift{}, false
		}
		neg, abs := numParts(n)
		switch {
		case i == 0:
			sh = numShift{neg: neg, abs: abs}
		case neg != sh.neg && abs != 0 && sh.abs != 0:
			return numShift{}, false
		case abs < sh.abs:
			sh = numShift{neg: neg, abs: abs}
		}
	}
	return sh, sh.abs != 0
}

// numShift is a magnitude to take off numbers of one sign.
type numShift struct {
	neg bool
	abs uint64
}

// shiftNum moves n toward 0 by d.abs (n has d's sign and at least its
// magnitude).
func shiftNum(n oracle.Num, d numShift) oracle.Num {
	neg, abs := numParts(n)
	return makeNum(neg, abs-d.abs)
}

// numParts returns n's sign and magnitude.
func numParts(n oracle.Num) (neg bool, abs uint64) {
	if v, ok := n.Int64(); ok && v < 0 {
		return true, uint64(-(v + 1)) + 1
	}
	u, _ := n.Uint64()
	return false, u
}

// makeNum returns the Num of sign neg and magnitude abs (at most 2^63 when
// neg).
func makeNum(neg bool, abs uint64) oracle.Num {
	if neg && abs != 0 {
		return oracle.I(-int64(abs-1) - 1)
	}
	return oracle.U(abs)
}

// numFields lists the accessors of an op's integer arguments.
var numFields = []func(*oracle.Op) *oracle.Num{
	func(o *oracle.Op) *oracle.Num { return &o.Tks },
	func(o *oracle.Op) *oracle.Num { return &o.Last },
	func(o *oracle.Op) *oracle.Num { return &o.Cap },
	func(o *oracle.Op) *oracle.Num { return &o.Refil },
	func(o *oracle.Op) *oracle.Num { return &o.Ivl },
	func(o *oracle.Op) *oracle.Num { return &o.Maxif },
	func(o *oracle.Op) *oracle.Num { return &o.Now },
	func(o *oracle.Op) *oracle.Num { return &o.Cost },
	func(o *oracle.Op) *oracle.Num { return &o.N },
	func(o *oracle.Op) *oracle.Num { return &o.Retry },
}

// simplifyOps simplifies every op's arguments, but those of the ops of a
// twin run, and on a long trace the addresses and keys that other ops name
// too (rename's).
func (s *shrinker) simplifyOps() bool {
	progress := false
	twins, names, at := s.twinRuns(), s.names(), s.accepted
	for i := 0; i < len(s.cur.Ops) && !s.done(); i++ {
		if at != s.accepted { // a simpler argument may have named a twin's key again
			twins, names, at = s.twinRuns(), s.names(), s.accepted
		}
		if inTwinRun(twins, i) {
			continue
		}
		// on a long trace a string named by other ops too is rename's:
		// one run for all of them, where one op at a time is a run each
		shared := func(b *oracle.Bytes) bool { return len(s.cur.Ops) > longOps && b != nil && names[string(*b)] > 1 }
		for _, f := range numFields {
			if s.shrinkNum(func(t *oracle.Trace) *oracle.Num { return f(&t.Ops[i]) }, "") {
				progress = true
			}
		}
		if !shared(s.cur.Ops[i].IP) && s.shrinkPtrBytes(func(t *oracle.Trace) **oracle.Bytes { return &t.Ops[i].IP }) {
			progress = true
		}
		if !shared(s.cur.Ops[i].Key) && s.shrinkPtrBytes(func(t *oracle.Trace) **oracle.Bytes { return &t.Ops[i].Key }) {
			progress = true
		}
		if s.shrinkList(func(t *oracle.Trace) *[]oracle.Bytes { return &t.Ops[i].Keys }, false) {
			progress = true
		}
		if s.simplifyFaults(i) {
			progress = true
		}
	}
	return progress
}

// simplifyFaults deletes the fault rules of op i one by one, then their
// keys, and shortens the keys.
func (s *shrinker) simplifyFaults(i int) bool {
	progress := false
	for j := len(s.cur.Ops[i].Faults) - 1; j >= 0 && !s.done(); j-- {
		if s.try(s.edit(func(t *oracle.Trace) { t.Ops[i].Faults = slices.Delete(t.Ops[i].Faults, j, j+1) })) {
			progress = true
		}
	}
	for j := 0; j < len(s.cur.Ops[i].Faults) && !s.done(); j++ {
		// an empty key list reads back as none: keep it nil
		if s.shrinkList(func(t *oracle.Trace) *[]oracle.Bytes { return &t.Ops[i].Faults[j].Keys }, true) {
			progress = true
		}
	}
	return progress
}

// shrinkList deletes chunks of the elements of a byte-string list, halves
// first, down to single elements, from the end, then shortens each;
// nilWhenEmpty makes an emptied list nil.
func (s *shrinker) shrinkList(get func(*oracle.Trace) *[]oracle.Bytes, nilWhenEmpty bool) bool {
	progress := false
	for size := max(len(*get(&s.cur))/2, 1); size >= 1 && len(*get(&s.cur)) > 0; size /= 2 {
		for end := len(*get(&s.cur)); end > 0 && !s.done(); end -= size {
			end = min(end, len(*get(&s.cur)))
			start := max(end-size, 0)
			cand := s.edit(func(t *oracle.Trace) {
				l := get(t)
				*l = slices.Delete(*l, start, end)
				if nilWhenEmpty && len(*l) == 0 {
					*l = nil
				}
			})
			if s.try(cand) {
				progress = true
			}
		}
	}
	for j := 0; j < len(*get(&s.cur)) && !s.done(); j++ {
		if s.shrinkBytes(func(t *oracle.Trace) *oracle.Bytes { return &(*get(t))[j] }) {
			progress = true
		}
	}
	return progress
}

// simplifyConfig simplifies the config's fields.
func (s *shrinker) simplifyConfig() bool {
	type field struct {
		name string
		get  func(*oracle.Trace) *oracle.Num
	}
	var fields []field
	switch {
	case s.cur.Config.Gate != nil:
		fields = []field{
			{"cap", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.Cap }},
			{"refil", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.Refil }},
			{"ivl", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.Ivl }},
			{"maxif", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.Maxif }},
			{"sets", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.Sets }},
			{"ways", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.Ways }},
			{"tick_nanos", func(t *oracle.Trace) *oracle.Num { return &t.Config.Gate.TickNanos }},
		}
	case s.cur.Config.Throttle != nil:
		fields = []field{
			{"threshold", func(t *oracle.Trace) *oracle.Num { return &t.Config.Throttle.Threshold }},
			{"window_secs", func(t *oracle.Trace) *oracle.Num { return &t.Config.Throttle.WindowSecs }},
			{"ban_secs", func(t *oracle.Trace) *oracle.Num { return &t.Config.Throttle.BanSecs }},
		}
	}
	progress := s.zeroSeed()
	for _, f := range fields {
		if s.ladderNum(f.get, f.name) {
			progress = true
		}
		if s.shrinkNum(f.get, f.name) {
			progress = true
		}
		if s.withOneOpLess(f.get) {
			progress = true
		}
	}
	return progress
}

// longOps is the length past which a trace is long: each run of it costs
// what hundreds of a handful of ops do, so a candidate that changes one
// thing, named (a config field's value, a chunk deleted), and did not fail
// is not judged again (tryOnce) while the trace keeps its length, though
// other passes simplified it in between: a guess that they did not make it
// fail, which holds for the structures only long traces have (a twin run
// of 1,025 keys needs them all under any simpler cap or time).
const longOps = 256

// tryOnce is try, but on a long trace a candidate named name that did
// not fail on a trace of the current length is not judged again; an empty
// name is try.
func (s *shrinker) tryOnce(name string, cand oracle.Trace) bool {
	if name == "" || len(s.cur.Ops) <= longOps {
		return s.try(cand)
	}
	key := strconv.Itoa(len(s.cur.Ops)) + " " + name
	if s.judged[key] || s.done() {
		return false
	}
	if s.try(cand) {
		return true
	}
	s.judged[key] = true
	return false
}

// zeroSeed tries the zero seed in place of a gate's other seed (GATE-18):
// a case under the public seed is the simpler one to read and rerun.
func (s *shrinker) zeroSeed() bool {
	const zero = "00000000000000000000000000000000"
	if g := s.cur.Config.Gate; g == nil || g.Seed == zero || s.done() {
		return false
	}
	return s.try(s.edit(func(t *oracle.Trace) { t.Config.Gate.Seed = zero }))
}

// ladderNum moves the positive integer get returns to the least failing
// of 1 and each 2^k-1, 2^k, 2^k+1 below it, trying them in increasing
// order (at most 190 candidates, each judged once per Shrink). On a trace
// of more than longOps ops it tries the nearest step below first, and the
// others only when that one fails: each candidate is a run of the whole
// trace, and a long trace's shape (a twin run, a count past a width)
// rarely rests on a config field at a width's edge, while walking the
// ladder up to a field that a long trace needs near its value (maxif 1025
// for 1,025 passes) is thirty runs that all pass. name names the field for
// tryOnce ("": none).
func (s *shrinker) ladderNum(get func(*oracle.Trace) *oracle.Num, name string) bool {
	neg, abs := numParts(*get(&s.cur))
	if neg || abs <= 1 {
		return false
	}
	steps := ladder(abs)
	try := func(c uint64) bool {
		return !s.done() && s.tryOnce(named(name, c), s.edit(func(t *oracle.Trace) { *get(t) = oracle.U(c) }))
	}
	progress := false
	if len(s.cur.Ops) > longOps { // the nearest step first: when it does not fail, none lower is tried
		if !try(steps[len(steps)-1]) {
			return false
		}
		progress, steps = true, steps[:len(steps)-1]
	}
	for _, c := range steps {
		if try(c) {
			return true
		}
	}
	return progress
}

// ladder returns 1 and each 2^k-1, 2^k, 2^k+1 below v, increasing, without
// repeats.
func ladder(v uint64) []uint64 {
	out := []uint64{1}
	for k := uint(1); k < 64; k++ {
		for _, c := range []uint64{1<<k - 1, 1 << k, 1<<k + 1} {
			if c < v && c > out[len(out)-1] {
				out = append(out, c)
			}
		}
	}
	return out
}

// withOneOpLess tries the smallest valid value (1) and one less of the
// positive integer get returns, each with one op deleted, for a trace of
// at most shortOps ops: a config field and an op that only together make the
// trace fail (maxif 3 and the passes that fill it) shrink as one.
func (s *shrinker) withOneOpLess(get func(*oracle.Trace) *oracle.Num) bool {
	neg, abs := numParts(*get(&s.cur))
	if neg || abs <= 1 || len(s.cur.Ops) > shortOps {
		return false
	}
	for _, c := range []uint64{1, abs - 1} {
		for i := range s.cur.Ops {
			if s.done() {
				return false
			}
			if s.try(s.edit(func(t *oracle.Trace) { *get(t) = oracle.U(c); t.Ops = slices.Delete(t.Ops, i, i+1) })) {
				return true
			}
		}
	}
	return false
}

// tradeReleases deletes a gate release together with raising maxif by one,
// so the admits after it keep their places: a counterexample that needs
// more passes in flight than a small maxif allows (four admits and maxif
// 3) sheds its release instead of keeping it as the price of the small
// maxif. Short traces only, as withOneOpLess.
func (s *shrinker) tradeReleases() bool {
	g := s.cur.Config.Gate
	if g == nil || len(s.cur.Ops) > shortOps {
		return false
	}
	maxif, ok := g.Maxif.Int64()
	if !ok || maxif < 1 || maxif == math.MaxInt64 {
		return false
	}
	for i := range s.cur.Ops {
		if s.done() {
			return false
		}
		if s.cur.Ops[i].Kind != oracle.Release {
			continue
		}
		if s.try(s.edit(func(t *oracle.Trace) { t.Config.Gate.Maxif = oracle.I(maxif + 1); t.Ops = slices.Delete(t.Ops, i, i+1) })) {
			return true
		}
	}
	return false
}

// deleteAndMove deletes one op and moves another to a new place in the
// same candidate, for a trace of at most shortOps ops (at most 8*7*6
// candidates, each judged once per Shrink): where an op only keeps the
// others in the order that matters (a key that fills way 0 until another
// evicts it, so that the evicting key is the one in way 0 later), neither
// deleting it nor reordering alone fails, and both together do. Moving
// alone is never tried: it makes no trace smaller.
func (s *shrinker) deleteAndMove() bool {
	n := len(s.cur.Ops)
	if n < 3 || n > shortOps {
		return false
	}
	for i := range n {
		for j := range n - 1 {
			for to := range n - 1 {
				if to == j {
					continue
				}
				if s.done() {
					return false
				}
				if s.try(s.edit(func(t *oracle.Trace) { t.Ops = moveOp(slices.Delete(t.Ops, i, i+1), j, to) })) {
					return true
				}
			}
		}
	}
	return false
}

// moveOp returns ops with the op at from moved to index to.
func moveOp(ops []oracle.Op, from, to int) []oracle.Op {
	op := ops[from]
	return slices.Insert(slices.Delete(ops, from, from+1), to, op)
}

// halveClock halves a gate's ivl and every time of the trace together
// (floors), again while the halved trace fails and ivl > 1: a counterexample that needs one time within a
// step of another and a third a whole step later (an eviction that
// compares refills) keeps its shape, where shrinking ivl or a time alone
// moves only one of two coupled values and creeps down by the gap.
func (s *shrinker) halveClock() bool {
	progress := false
	for !s.done() && s.cur.Config.Gate != nil {
		ivl, ok := s.cur.Config.Gate.Ivl.Int64()
		if !ok || ivl <= 1 {
			break
		}
		halved := s.edit(func(t *oracle.Trace) {
			t.Config.Gate.Ivl = oracle.I(ivl / 2)
			for i := range t.Ops {
				if now, ok := t.Ops[i].Now.Int64(); ok && !t.Ops[i].Now.IsZero() {
					t.Ops[i].Now = oracle.I(now >> 1)
				}
			}
		})
		if !s.try(halved) {
			break
		}
		progress = true
	}
	return progress
}

// shortenSpans moves a throttle's window_secs, then its ban_secs, to the
// least failing value of its ladder (as ladderNum), moving each throttle
// time at or past the old value down by the same amount, for a trace of
// at most shortOps ops: where a trace fails because a late op comes a
// fixed span after the window or ban ends, neither the span nor the time
// shrinks alone, and one step at a time both take a round of every pass.
func (s *shrinker) shortenSpans() bool {
	if s.cur.Config.Throttle == nil || len(s.cur.Ops) > shortOps {
		return false
	}
	progress := false
	for _, get := range []func(*oracle.Trace) *oracle.Num{
		func(t *oracle.Trace) *oracle.Num { return &t.Config.Throttle.WindowSecs },
		func(t *oracle.Trace) *oracle.Num { return &t.Config.Throttle.BanSecs },
	} {
		if s.shortenSpan(get) {
			progress = true
		}
	}
	return progress
}

// shortenSpan is shortenSpans for the one field get returns.
func (s *shrinker) shortenSpan(get func(*oracle.Trace) *oracle.Num) bool {
	neg, span := numParts(*get(&s.cur))
	if neg || span <= 1 || !s.anyTimeFrom(span) {
		return false
	}
	for _, c := range ladder(span) {
		if s.done() {
			return false
		}
		cand := s.edit(func(t *oracle.Trace) {
			*get(t) = oracle.U(c)
			for i := range t.Ops {
				if neg, now := numParts(t.Ops[i].Now); !neg && !t.Ops[i].Now.IsZero() && now >= span {
					t.Ops[i].Now = oracle.U(now - (span - c))
				}
			}
		})
		if s.try(cand) {
			return true
		}
	}
	return false
}

// anyTimeFrom reports whether an op of the current trace has a now of at
// least v.
func (s *shrinker) anyTimeFrom(v uint64) bool {
	for _, op := range s.cur.Ops {
		if neg, now := numParts(op.Now); !neg && !op.Now.IsZero() && now >= v {
			return true
		}
	}
	return false
}

// shrinkNum moves the integer get returns toward 0, keeping its sign: 0,
// then one less, then a binary search between 0 and the current value
// (halving the distance each time). name names the integer for tryOnce
// ("": none).
func (s *shrinker) shrinkNum(get func(*oracle.Trace) *oracle.Num, name string) bool {
	n := *get(&s.cur)
	if n.IsZero() {
		return false
	}
	neg, abs := numParts(n)
	if abs == 0 {
		return false
	}
	try := func(a uint64) bool {
		v := makeNum(neg, a)
		return s.tryOnce(named(name, v), s.edit(func(t *oracle.Trace) { *get(t) = v }))
	}
	if try(0) {
		return true
	}
	if abs == 1 || !try(abs-1) {
		return false // under monotonicity nothing smaller fails either
	}
	lo, hi := uint64(0), abs-1 // lo does not fail, hi does
	for hi-lo > 1 && !s.done() {
		mid := lo + (hi-lo)/2
		if try(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return true
}

// shrinkPtrBytes simplifies a byte-string argument that may be absent.
func (s *shrinker) shrinkPtrBytes(get func(*oracle.Trace) **oracle.Bytes) bool {
	if *get(&s.cur) == nil {
		return false
	}
	return s.shrinkBytes(func(t *oracle.Trace) *oracle.Bytes { return *get(t) })
}

// shrinkBytes simplifies the byte string get returns until no candidate
// fails: empty, "a", its first byte, its first half, all but its last or
// first byte, its bytes outside printable ASCII made 'a', all 'a'. A
// candidate must be simpler (bytesCost).
func (s *shrinker) shrinkBytes(get func(*oracle.Trace) *oracle.Bytes) bool {
	progress := s.shortestPrefix(get)
	for !s.done() {
		cur := string(*get(&s.cur))
		found := false
		for _, c := range bytesCandidates(cur) {
			if !bytesSimpler(c, cur) {
				continue
			}
			if s.try(s.edit(func(t *oracle.Trace) { *get(t) = oracle.Bytes(c) })) {
				found, progress = true, true
				break
			}
		}
		if !found {
			break
		}
	}
	return progress
}

// shortestPrefix cuts the byte string get returns to the shortest prefix
// that fails, by binary search over its length (assuming a longer prefix
// of a failing one fails too: a key cut where a port cuts it).
func (s *shrinker) shortestPrefix(get func(*oracle.Trace) *oracle.Bytes) bool {
	cur := string(*get(&s.cur))
	lo, hi := 0, len(cur) // a prefix of lo bytes is not known to fail; one of hi does
	progress := false
	for hi-lo > 1 && !s.done() {
		mid := lo + (hi-lo)/2
		if s.try(s.edit(func(t *oracle.Trace) { *get(t) = oracle.Bytes(cur[:mid]) })) {
			hi, progress = mid, true
		} else {
			lo = mid
		}
	}
	return progress
}

// rename replaces each byte string of the trace (a key, an address, a list
// or fault key) everywhere it occurs by a simpler one at once: the
// shortest failing prefix, then the forms bytesCandidates lists, so that
// a key failed on and then checked shrinks as one.
func (s *shrinker) rename() bool {
	progress := false
	twins := map[string]bool{} // the addresses of twin runs' ops, each named once
	for _, r := range s.twinRuns() {
		for _, op := range s.cur.Ops[r.start:r.end] {
			twins[string(*op.IP)] = true
		}
	}
	for _, from := range distinctBytes(s.cur) {
		if s.done() {
			break
		}
		if twins[from] {
			continue
		}
		cur := from
		lo, hi := 0, len(cur)
		for hi-lo > 1 && !s.done() {
			mid := lo + (hi-lo)/2
			if s.try(s.edit(func(t *oracle.Trace) { replaceBytes(t, cur, cur[:mid]) })) {
				hi, progress = mid, true
			} else {
				lo = mid
			}
		}
		cur = cur[:hi]
		if hi == 1 && s.try(s.edit(func(t *oracle.Trace) { replaceBytes(t, cur, "") })) {
			cur, progress = "", true
		}
		for _, c := range bytesCandidates(cur) {
			if bytesSimpler(c, cur) && !s.done() && s.try(s.edit(func(t *oracle.Trace) { replaceBytes(t, cur, c) })) {
				cur, progress = c, true
			}
		}
	}
	return progress
}

// distinctBytes lists the byte strings of t's ops, each once, the longest
// first.
func distinctBytes(t oracle.Trace) []string {
	var out []string
	eachBytes(&t, func(b *oracle.Bytes) {
		if !slices.Contains(out, string(*b)) {
			out = append(out, string(*b))
		}
	})
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// replaceBytes replaces every byte string of t's ops equal to from by to.
func replaceBytes(t *oracle.Trace, from, to string) {
	eachBytes(t, func(b *oracle.Bytes) {
		if string(*b) == from {
			*b = oracle.Bytes(to)
		}
	})
}

// eachBytes calls f on every byte string of t's ops: addresses, keys, list
// keys and fault keys.
func eachBytes(t *oracle.Trace, f func(*oracle.Bytes)) {
	for i := range t.Ops {
		op := &t.Ops[i]
		for _, p := range []*oracle.Bytes{op.IP, op.Key} {
			if p != nil {
				f(p)
			}
		}
		for j := range op.Keys {
			f(&op.Keys[j])
		}
		for j := range op.Faults {
			for k := range op.Faults[j].Keys {
				f(&op.Faults[j].Keys[k])
			}
		}
	}
}

// bytesCandidates lists simpler forms of b to try, simplest first.
func bytesCandidates(b string) []string {
	if b == "" {
		return nil
	}
	ascii := []byte(b)
	for i, c := range ascii {
		if c < 0x20 || c > 0x7e {
			ascii[i] = 'a'
		}
	}
	return []string{"", "a", b[:1], b[:len(b)/2], b[:len(b)-1], b[1:], string(ascii), strings.Repeat("a", len(b))}
}

// bytesSimpler reports whether a is simpler than b: shorter, or as long
// with fewer bytes outside printable ASCII, or then fewer bytes other than
// 'a'.
func bytesSimpler(a, b string) bool {
	ca, cb := bytesCost(a), bytesCost(b)
	return slices.Compare(ca[:], cb[:]) < 0
}

// bytesCost is what bytesSimpler compares.
func bytesCost(s string) [3]int {
	var odd, notA int
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			odd++
		}
		if s[i] != 'a' {
			notA++
		}
	}
	return [3]int{len(s), odd, notA}
}

// named is the tryOnce name of value v given to the field name ("" when
// name is).
func named(name string, v any) string {
	if name == "" {
		return ""
	}
	return fmt.Sprint(name, "=", v)
}
