package fuzz

import (
	"runtime"

	ithrottle "github.com/limcheck/limcheck/impl/throttle"
)

// linYieldStore is a store that yields before passing each operation to
// inner. It has no fused paths, so a throttle over it makes the model's two
// store operations for check and record_failure, with a yield between them.
type linYieldStore struct{ inner ithrottle.Store }

func (s linYieldStore) BanUntil(key string) (uint64, error) {
	runtime.Gosched()
	return s.inner.BanUntil(key)
}

func (s linYieldStore) Count(key string, now, window uint64) (uint64, error) {
	runtime.Gosched()
	return s.inner.Count(key, now, window)
}

func (s linYieldStore) AddFailure(key string, now, window uint64) (uint64, error) {
	runtime.Gosched()
	return s.inner.AddFailure(key, now, window)
}

func (s linYieldStore) Ban(key string, until uint64) (uint64, error) {
	runtime.Gosched()
	return s.inner.Ban(key, until)
}

func (s linYieldStore) ClearFailures(key string) error {
	runtime.Gosched()
	return s.inner.ClearFailures(key)
}

func (s linYieldStore) Clear(key string) error {
	runtime.Gosched()
	return s.inner.Clear(key)
}

func (s linYieldStore) Purge(now, window uint64) (uint64, error) {
	runtime.Gosched()
	return s.inner.Purge(now, window)
}

// linYieldMemStore is impl's MemStore, fused paths included, yielding before
// every operation. Each operation stays one atomic MemStore operation, so a
// throttle over it is exactly as linearizable as over the MemStore itself;
// the yields only let other clients run between the operations one throttle
// call makes (check_any's per-key checks), which the scheduler alone rarely
// does.
type linYieldMemStore struct {
	linYieldStore
	mem *ithrottle.MemStore
}

var _ ithrottle.FusedStore = linYieldMemStore{}

func newLinYieldMemStore(mem *ithrottle.MemStore) linYieldMemStore {
	return linYieldMemStore{linYieldStore{mem}, mem}
}

func (s linYieldMemStore) CheckState(key string, now, window uint64) (until, count uint64, err error) {
	runtime.Gosched()
	return s.mem.CheckState(key, now, window)
}

func (s linYieldMemStore) FailAndBan(key string, now, window, threshold, until uint64) (count, banUntil uint64, err error) {
	runtime.Gosched()
	return s.mem.FailAndBan(key, now, window, threshold, until)
}

// StampsPerKey is the MemStore's, so that throttle.New checks it.
func (s linYieldMemStore) StampsPerKey() uint64 { return s.mem.StampsPerKey() }
