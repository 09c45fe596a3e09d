package fuzz

import (
	"testing"

	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"pgregory.net/rapid"
)

// The fuzz targets. Each compares the model and impl on what it decodes
// from its input; make fuzz runs each in turn, make test briefly
// (fuzzsmoke). Their seed corpora, under testdata/fuzz/<target>/, are
// written by TestSeedCorpusIsCurrent from corpus_test.go.

// fuzzTrace decodes data as a trace of c (decode_test.go) and applies it to
// the model and impl op by op, comparing every result and, after every op,
// the observable state.
func fuzzTrace(t *testing.T, c oracle.Component, data []byte) {
	fuzzTraceOn(t, subject.Impl{}, c, data, maxOps)
}

// fuzzTraceOn is fuzzTrace with subject in impl's place, applying at most
// most ops of the trace (the Redis targets keep each input's round trips
// few).
func fuzzTraceOn(t *testing.T, subject oracle.Subject, c oracle.Component, data []byte, most int) {
	dec := newDecoder(c, data)
	d := openDifferentialOn(t, subject, c, dec.config())
	if d == nil {
		return // both refused the config, the same way
	}
	for n := 0; n < most; n++ {
		op, ok := dec.next()
		if !ok {
			return
		}
		dec.observe(op, d.step(t, op))
		d.checkState(t)
	}
}

// FuzzLim checks that impl's lim functions equal the model's on decoded
// histories: takes chained through the bucket each returns, lim_acq and
// lim_rel chained through the count, and the pure functions.
func FuzzLim(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, oracle.Lim, data) })
}

// FuzzGate checks that impl's gate equals the model's on decoded histories
// of admits, releases and reads, and refuses the same configs.
func FuzzGate(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, oracle.Gate, data) })
}

// FuzzThrottle checks that impl's throttle over its MemStore equals the
// model's on decoded histories.
func FuzzThrottle(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, oracle.Throttle, data) })
}

// FuzzThrottleFaults checks that impl's throttle over a fault-injecting
// store equals the model's on decoded histories with fault rules.
func FuzzThrottleFaults(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, oracle.ThrottleFaults, data) })
}

// FuzzIPKey checks that impl's lim_ip_key equals the model's on any bytes.
func FuzzIPKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, ip []byte) {
		b := oracle.Bytes(ip)
		openDifferential(t, oracle.Lim, oracle.Config{}).step(t, oracle.Op{Kind: oracle.LimIPKey, IP: &b})
	})
}

// FuzzResp503 checks that impl's lim_resp_503 returns exactly the model's
// bytes for any int64 retry.
func FuzzResp503(f *testing.F) {
	f.Fuzz(func(t *testing.T, retry int64) {
		openDifferential(t, oracle.Lim, oracle.Config{}).step(t, oracle.Op{Kind: oracle.LimResp503, Retry: oracle.I(retry)})
	})
}

// machinePad is the zeros fuzzMachine appends to an input: rapid reads 8
// bytes a draw and skips an input it reads past, and zeros draw the simplest
// values and end a Repeat, so a padded input always runs to its end.
const machinePad = 8 * 256

// fuzzMachine runs the state machine of c (statemachine_test.go) under go
// test -fuzz with rapid.MakeFuzz: the input is rapid's choices.
func fuzzMachine(c oracle.Component) func(*testing.T, []byte) {
	prop := rapid.MakeFuzz(machine(c))
	return func(t *testing.T, data []byte) {
		prop(t, append(data[:len(data):len(data)], make([]byte, machinePad)...))
	}
}

// FuzzMachineLim is TestPropImplLimEqualsModel's state machine driven by
// the fuzzer's coverage guidance.
func FuzzMachineLim(f *testing.F) { f.Fuzz(fuzzMachine(oracle.Lim)) }

// FuzzMachineGate is TestPropImplGateEqualsModel's state machine driven by
// the fuzzer's coverage guidance.
func FuzzMachineGate(f *testing.F) { f.Fuzz(fuzzMachine(oracle.Gate)) }

// FuzzMachineThrottle is TestPropImplThrottleEqualsModel's state machine
// driven by the fuzzer's coverage guidance.
func FuzzMachineThrottle(f *testing.F) { f.Fuzz(fuzzMachine(oracle.Throttle)) }

// FuzzMachineThrottleFaults is TestPropImplThrottleFaultsEqualsModel's
// state machine driven by the fuzzer's coverage guidance.
func FuzzMachineThrottleFaults(f *testing.F) { f.Fuzz(fuzzMachine(oracle.ThrottleFaults)) }
