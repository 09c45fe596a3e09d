package bench

import (
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
	"golang.org/x/time/rate"
)

// The gate comparison: Admit+Release over 10,000 (and, in the ...1M
// benchmarks, 1,000,000) distinct IPv4 strings, pre-warmed, a nanosecond
// tick, a refill so generous that requests pass.
const (
	nIPs   = 10_000
	nIPs1M = 1_000_000
)

// ips returns n distinct IPv4 strings.
func ips(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	}
	return out
}

// admitter is the function under test: admit one request, then release it.
type admitter interface {
	admitRelease(ip string, now int64) bool
}

// implGate is impl/gate with sets of 4 ways and about two ways per
// address (2^13 sets for 10,000 addresses, 2^19 for 1,000,000), so that
// few sets overflow and evict.
type implGate struct{ g *gate.Gate }

func newImplGate() implGate { return newImplGateSets(1 << 13) }

func newImplGate1M() implGate { return newImplGateSets(1 << 19) }

func newImplGateSets(sets int64) implGate {
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(1000, 1000, 1, 1<<30), Sets: sets, Ways: 4, TickNanos: 1})
	if err != nil {
		panic(err)
	}
	return implGate{g}
}

func (a implGate) admitRelease(ip string, now int64) bool {
	d := a.g.Admit(ip, now)
	if d.Verdict == gate.Pass {
		a.g.Release(d)
		return true
	}
	return false
}

// mutexMap is the common recipe: map[string]*rate.Limiter behind a
// sync.Mutex, plus an atomic in-flight counter.
type mutexMap struct {
	mu       sync.Mutex
	m        map[string]*rate.Limiter
	inflight atomic.Int64
	maxif    int64
}

func newMutexMap() *mutexMap {
	return &mutexMap{m: map[string]*rate.Limiter{}, maxif: 1 << 30}
}

func (a *mutexMap) admitRelease(ip string, now int64) bool {
	if a.inflight.Add(1) > a.maxif {
		a.inflight.Add(-1)
		return false
	}
	defer a.inflight.Add(-1)
	a.mu.Lock()
	l, ok := a.m[ip]
	if !ok {
		l = rate.NewLimiter(rate.Every(time.Nanosecond), 1000)
		a.m[ip] = l
	}
	a.mu.Unlock()
	return l.AllowN(time.Unix(0, now), 1)
}

// syncMap is the same recipe over sync.Map.
type syncMap struct {
	m        sync.Map
	inflight atomic.Int64
	maxif    int64
}

func (a *syncMap) admitRelease(ip string, now int64) bool {
	if a.inflight.Add(1) > a.maxif {
		a.inflight.Add(-1)
		return false
	}
	defer a.inflight.Add(-1)
	v, ok := a.m.Load(ip)
	if !ok {
		v, _ = a.m.LoadOrStore(ip, rate.NewLimiter(rate.Every(time.Nanosecond), 1000))
	}
	return v.(*rate.Limiter).AllowN(time.Unix(0, now), 1)
}

// benchAdmit pre-warms every address, then admits and releases in turn.
func benchAdmit(b *testing.B, a admitter) { benchAdmitN(b, a, nIPs) }

func benchAdmitN(b *testing.B, a admitter, nIPs int) {
	addrs := ips(nIPs)
	benchAdmitWalk(b, a, addrs, addrs)
}

// benchAdmitShuffled is benchAdmit with the addresses warmed up in address
// order, then admitted in a fixed random order: the order in which an
// implementation first saw its keys, and allocated their state, is not the
// order of the requests, as with real clients. In benchAdmit's walk, a peer
// that allocates per-key state on a key's first request reads that state in
// allocation order, as 2.0's gate, whose set was the key mod sets, read its
// table (bench/results/local-2core-gate3perf-shuffle20.txt).
func benchAdmitShuffled(b *testing.B, a admitter) {
	addrs := ips(nIPs)
	walk := slices.Clone(addrs)
	r := mrand.New(mrand.NewPCG(1, 2))
	r.Shuffle(len(walk), func(i, j int) { walk[i], walk[j] = walk[j], walk[i] })
	benchAdmitWalk(b, a, addrs, walk)
}

// benchAdmitWalk admits and releases each of warm once, then the addresses
// of walk in turn.
func benchAdmitWalk(b *testing.B, a admitter, warm, walk []string) {
	for i, ip := range warm {
		a.admitRelease(ip, int64(i))
	}
	addrs, nIPs := walk, len(walk)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuSeconds()
	j := 0
	for i := 0; b.Loop(); i++ {
		a.admitRelease(addrs[j], int64(nIPs+i))
		if j++; j == nIPs {
			j = 0
		}
	}
	b.ReportMetric((cpuSeconds()-cpu)*1e9/float64(b.N), "cpu-ns/op") // the process's CPU time: less of the machine's load than wall time
}

// benchAdmitParallel is benchAdmit from GOMAXPROCS goroutines; its
// cpu-ns/op is the CPU time of all of them per operation.
func benchAdmitParallel(b *testing.B, a admitter) { benchAdmitParallelN(b, a, nIPs) }

func benchAdmitParallelN(b *testing.B, a admitter, nIPs int) {
	addrs := ips(nIPs)
	for i, ip := range addrs {
		a.admitRelease(ip, int64(i))
	}
	var clock atomic.Int64
	clock.Store(int64(nIPs))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuSeconds()
	defer func() { b.ReportMetric((cpuSeconds()-cpu)*1e9/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		i := int(clock.Add(7919))
		j := i % nIPs
		for pb.Next() {
			i++
			a.admitRelease(addrs[j], int64(nIPs+i))
			if j++; j == nIPs {
				j = 0
			}
		}
	})
}

// benchAdmitDisjoint is benchAdmitParallel with each goroutine serving its
// own clients, as keep-alive connections do: per-client state stays on one
// core, and what is left shared is the in-flight count.
func benchAdmitDisjoint(b *testing.B, a admitter) {
	addrs := ips(nIPs)
	for i, ip := range addrs {
		a.admitRelease(ip, int64(i))
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		const part = 500
		base := int(next.Add(1)-1) * part % nIPs
		for i, j := 0, 0; pb.Next(); i++ {
			a.admitRelease(addrs[base+j], int64(nIPs+i))
			if j++; j == part {
				j = 0
			}
		}
	})
}

func BenchmarkGateAdmitReleaseDisjoint(b *testing.B) { benchAdmitDisjoint(b, newImplGate()) }
func BenchmarkAnchorMutexMapAdmitReleaseDisjoint(b *testing.B) {
	benchAdmitDisjoint(b, newMutexMap())
}
func BenchmarkAnchorSyncMapAdmitReleaseDisjoint(b *testing.B) {
	benchAdmitDisjoint(b, &syncMap{maxif: 1 << 30})
}

func BenchmarkGateAdmitRelease(b *testing.B)           { benchAdmit(b, newImplGate()) }
func BenchmarkAnchorMutexMapAdmitRelease(b *testing.B) { benchAdmit(b, newMutexMap()) }
func BenchmarkAnchorSyncMapAdmitRelease(b *testing.B) {
	benchAdmit(b, &syncMap{maxif: 1 << 30})
}
func BenchmarkGateShuffledAdmitRelease(b *testing.B) { benchAdmitShuffled(b, newImplGate()) }
func BenchmarkAnchorMutexMapShuffledAdmitRelease(b *testing.B) {
	benchAdmitShuffled(b, newMutexMap())
}
func BenchmarkGateAdmitRelease1M(b *testing.B) { benchAdmitN(b, newImplGate1M(), nIPs1M) }
func BenchmarkAnchorMutexMapAdmitRelease1M(b *testing.B) {
	benchAdmitN(b, newMutexMap(), nIPs1M)
}
func BenchmarkAnchorSyncMapAdmitRelease1M(b *testing.B) {
	benchAdmitN(b, &syncMap{maxif: 1 << 30}, nIPs1M)
}
func BenchmarkGateAdmitReleaseParallel1M(b *testing.B) {
	benchAdmitParallelN(b, newImplGate1M(), nIPs1M)
}
func BenchmarkAnchorMutexMapAdmitReleaseParallel1M(b *testing.B) {
	benchAdmitParallelN(b, newMutexMap(), nIPs1M)
}
func BenchmarkAnchorSyncMapAdmitReleaseParallel1M(b *testing.B) {
	benchAdmitParallelN(b, &syncMap{maxif: 1 << 30}, nIPs1M)
}
func BenchmarkGateAdmitReleaseParallel(b *testing.B) { benchAdmitParallel(b, newImplGate()) }
func BenchmarkAnchorMutexMapAdmitReleaseParallel(b *testing.B) {
	benchAdmitParallel(b, newMutexMap())
}
func BenchmarkAnchorSyncMapAdmitReleaseParallel(b *testing.B) {
	benchAdmitParallel(b, &syncMap{maxif: 1 << 30})
}

var sinkKey int64

// naiveKey is lim_ip_key with one modulo per byte, the seed's definition.
func naiveKey(s string) int64 {
	var h int64
	for i := 0; i < len(s); i++ {
		h = (h*131 + int64(s[i])) % 4294967291
	}
	return h
}

func BenchmarkIPKey(b *testing.B) {
	addrs := ips(nIPs)
	var s int64
	for j := 0; b.Loop(); {
		s += lim.IPKey(addrs[j])
		if j++; j == nIPs {
			j = 0
		}
	}
	sinkKey = s
}

func BenchmarkAnchorNaiveIPKey(b *testing.B) {
	addrs := ips(nIPs)
	var s int64
	for j := 0; b.Loop(); {
		s += naiveKey(addrs[j])
		if j++; j == nIPs {
			j = 0
		}
	}
	sinkKey = s
}
