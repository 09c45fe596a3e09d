//go:build !fuzzsmoke

package fuzz

import (
	"bytes"
	"testing"

	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"pgregory.net/rapid"
)

// The fuzz targets of impl/'s Redis twins (redisgate, redisstore): the
// model against the Redis subject on the shared server, on the inputs of
// the impl targets. go test runs their seeds (the corpus of the impl target
// each mirrors, added with f.Add); make fuzz-redis fuzzes them. Every input
// opens fresh instances, and the subject gives each a namespace of its own,
// so no input sees another's keys. Each input's cost is bounded: a trace
// target applies at most redisFuzzOps ops, a machine target reads at most
// redisMachineBytes of its input (about redisMachineBytes/8 draws).
//
// Left out: FuzzLim, FuzzIPKey and FuzzResp503 (lim is impl's own in the
// Redis subject: no Redis), and the machine of throttle_faults, whose
// seven-op path FuzzRedisThrottleFaults fuzzes op by op and
// TestPropRedisThrottleFaultsEqualsModel checks as a machine: its seeds
// would cost make test about as much as that whole property.
const (
	redisFuzzOps      = 24
	redisMachineBytes = 512
)

// addCorpus adds the seed corpus of the impl target named target (the
// files corpus_test.go writes under testdata/fuzz/<target>/) to f.
func addCorpus(f *testing.F, target string) {
	n := 0
	for _, file := range corpusFiles() {
		if file.target == target {
			f.Add(file.values[0].([]byte))
			n++
		}
	}
	if n == 0 {
		f.Fatalf("no seed corpus for %s", target)
	}
}

// fuzzRedisTrace is fuzzTrace over the Redis subject shared returns,
// redisFuzzOps ops at most.
func fuzzRedisTrace(shared func(testing.TB) (*redistest.Server, *subject.Redis), c oracle.Component) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		_, r := shared(t)
		fuzzTraceOn(t, r, c, data, redisFuzzOps)
	}
}

// fuzzRedisMachine is fuzzMachine over the Redis subject shared returns,
// on the first redisMachineBytes of the input.
func fuzzRedisMachine(shared func(testing.TB) (*redistest.Server, *subject.Redis), c oracle.Component) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		_, r := shared(t)
		data = data[:min(len(data), redisMachineBytes)]
		rapid.MakeFuzz(machineOn(r, c))(t, append(bytes.Clone(data), make([]byte, machinePad)...))
	}
}

// FuzzRedisGate checks that the Redis gate equals the model's on FuzzGate's
// decoded histories of admits, releases and reads, and refuses the same
// configs.
func FuzzRedisGate(f *testing.F) {
	addCorpus(f, "FuzzGate")
	f.Fuzz(fuzzRedisTrace(sharedRedis, oracle.Gate))
}

// FuzzRedisGateSpread is FuzzRedisGate with the Redis gate in the Spread
// layout.
func FuzzRedisGateSpread(f *testing.F) {
	addCorpus(f, "FuzzGate")
	f.Fuzz(fuzzRedisTrace(sharedRedisSpread, oracle.Gate))
}

// FuzzRedisThrottle checks that the throttle over the Redis store (its
// fused scripts) equals the model's on FuzzThrottle's decoded histories.
func FuzzRedisThrottle(f *testing.F) {
	addCorpus(f, "FuzzThrottle")
	f.Fuzz(fuzzRedisTrace(sharedRedis, oracle.Throttle))
}

// FuzzRedisThrottleFaults checks that the throttle over FaultStore(Redis
// store) (one command or script per store op) equals the model's on
// FuzzThrottleFaults's decoded histories with fault rules.
func FuzzRedisThrottleFaults(f *testing.F) {
	addCorpus(f, "FuzzThrottleFaults")
	f.Fuzz(fuzzRedisTrace(sharedRedis, oracle.ThrottleFaults))
}

// FuzzMachineRedisGate is TestPropRedisGateEqualsModel's state machine
// driven by the fuzzer's coverage guidance.
func FuzzMachineRedisGate(f *testing.F) {
	addCorpus(f, "FuzzMachineGate")
	f.Fuzz(fuzzRedisMachine(sharedRedis, oracle.Gate))
}

// FuzzMachineRedisGateSpread is FuzzMachineRedisGate with the Redis gate
// in the Spread layout.
func FuzzMachineRedisGateSpread(f *testing.F) {
	addCorpus(f, "FuzzMachineGate")
	f.Fuzz(fuzzRedisMachine(sharedRedisSpread, oracle.Gate))
}

// FuzzMachineRedisThrottle is TestPropRedisThrottleEqualsModel's state
// machine driven by the fuzzer's coverage guidance.
func FuzzMachineRedisThrottle(f *testing.F) {
	addCorpus(f, "FuzzMachineThrottle")
	f.Fuzz(fuzzRedisMachine(sharedRedis, oracle.Throttle))
}
