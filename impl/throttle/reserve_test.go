package throttle_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// rstep is one reservation call on a throttle over a MemStore and what it
// must return, rendered: Reserve "allow 3 held 0 reserved" (the decision,
// the reservations held before, whether one was made), FailReserved and
// RecordFailure "allow 2" or "banned 151", Purge "reservations 0" (those
// left), CancelReserved "".
type rstep struct {
	op   string // reserve, fail, cancel, record, purge
	name string // the reservation: made by reserve, settled by fail or cancel
	at   uint64
	held uint64 // reserve's held
	want string
}

func rv(name string, at, held uint64, want string) rstep {
	return rstep{op: "reserve", name: name, at: at, held: held, want: want}
}
func rfail(name string, at uint64, want string) rstep {
	return rstep{op: "fail", name: name, at: at, want: want}
}
func rcancel(name string) rstep            { return rstep{op: "cancel", name: name} }
func rrecord(at uint64, want string) rstep { return rstep{op: "record", at: at, want: want} }
func rpurge(at uint64, want string) rstep  { return rstep{op: "purge", at: at, want: want} }

// render is a decision as rstep's want spells it.
func render(d throttle.Decision) string {
	if d.Verdict == throttle.Banned {
		return fmt.Sprintf("banned %d", d.Until)
	}
	return fmt.Sprintf("%s %d", d.Verdict, d.Remaining)
}

// TestReserve runs reservation histories on one key of a MemStore
// (threshold 3, window 10, ban 50 unless the row says).
func TestReserve(t *testing.T) {
	for _, row := range []struct {
		clause, reason string
		cfg            throttle.Config
		steps          []rstep
	}{
		{"THR-11", "a reservation counts as a failure: threshold 3 lets 3 be in flight, the 4th is busy", cfg(3, 10, 50), []rstep{
			rv("a", t0, 0, "allow 3 held 0 reserved"), rv("b", t0, 0, "allow 3 held 1 reserved"),
			rv("c", t0, 0, "allow 3 held 2 reserved"), rv("d", t0, 0, "allow 3 held 3 refused")}},
		{"THR-11", "held, the caller's own entries, counts too", cfg(3, 10, 50), []rstep{
			rv("a", t0, 2, "allow 3 held 0 reserved"), rv("b", t0, 2, "allow 3 held 1 refused")}},
		{"THR-12", "FailReserved turns each reservation into its failure; the threshold-th bans", cfg(3, 10, 50), []rstep{
			rv("a", t0, 0, "allow 3 held 0 reserved"), rv("b", t0, 0, "allow 3 held 1 reserved"), rv("c", t0, 0, "allow 3 held 2 reserved"),
			rfail("a", t1, "allow 2"), rfail("b", t1, "allow 1"), rv("d", t1, 0, "allow 1 held 1 refused"),
			rfail("c", t1, "banned 151"), rv("d", t1, 0, "banned 151 held 0 refused")}},
		{"THR-14", "CancelReserved gives a reservation back, recording nothing; twice changes nothing", cfg(3, 10, 50), []rstep{
			rv("a", t0, 0, "allow 3 held 0 reserved"), rv("b", t0, 0, "allow 3 held 1 reserved"), rv("c", t0, 0, "allow 3 held 2 reserved"),
			rcancel("b"), rcancel("b"), rv("d", t0, 0, "allow 3 held 2 reserved"), rv("e", t0, 0, "allow 3 held 3 refused")}},
		{"THR-4", "a reservation never settled counts until t + window > now fails, then is dropped", cfg(3, 10, 50), []rstep{
			rv("a", t0, 0, "allow 3 held 0 reserved"), rv("b", t0, 0, "allow 3 held 1 reserved"), rv("c", t1, 0, "allow 3 held 2 reserved"),
			rv("d", t9, 0, "allow 3 held 3 refused"), rv("d", t10, 0, "allow 3 held 1 reserved"), rv("e", t11, 0, "allow 3 held 1 reserved")}},
		{"THR-4", "a late FailReserved of an expired reservation still records its failure", cfg(3, 10, 50), []rstep{
			rv("a", t0, 0, "allow 3 held 0 reserved"), rfail("a", t20, "allow 2"), rv("b", t20, 0, "allow 2 held 0 reserved")}},
		{"FIND-5", "with nothing in flight one attempt goes ahead at the count, as check allows it", cfg(3, 10, 2), []rstep{
			rrecord(t0, "allow 2"), rrecord(t0, "allow 1"), rrecord(t0, "banned 102"), rv("a", t1, 0, "banned 102 held 0 refused"),
			rv("a", t2, 0, "allow 0 held 0 reserved"), rv("b", t2, 0, "allow 0 held 1 refused"), rfail("a", t2, "banned 104")}},
		{"STORE-9", "Purge drops the reservations out of the window, and only those", cfg(3, 10, 50), []rstep{
			rv("a", t0, 0, "allow 3 held 0 reserved"), rv("b", t1, 0, "allow 3 held 1 reserved"),
			rpurge(t10, "reservations 1"), rpurge(t11, "reservations 0")}},
	} {
		if row.reason == "" || row.clause == "" {
			t.Fatalf("row %+v has no clause or reason", row)
		}
		mem := newMem(t, 3)
		th, err := throttle.New(mem, row.cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for i, st := range row.steps {
			if got := runReserveStep(t, th, mem, ids, st); got != st.want {
				t.Errorf("%s (%s): step %d %s(%s, t=%d, held %d) = %q, want %q", row.clause, row.reason, i, st.op, st.name, st.at, st.held, got, st.want)
			}
		}
	}
}

// runReserveStep runs st and renders its result; ids names the
// reservations made.
func runReserveStep(t *testing.T, th *throttle.Throttle, mem *throttle.MemStore, ids map[string]string, st rstep) string {
	t.Helper()
	var d throttle.Decision
	var err error
	switch st.op {
	case "reserve":
		var r throttle.Reservation
		r, err = th.Reserve(kIP, st.at, st.held)
		if err != nil {
			t.Fatalf("%s(%s): %v", st.op, st.name, err)
		}
		made := "refused"
		if r.ID != "" {
			made, ids[st.name] = "reserved", r.ID
		}
		return fmt.Sprintf("%s held %d %s", render(r.Decision), r.Held, made)
	case "fail":
		d, err = th.FailReserved(kIP, ids[st.name], st.at)
	case "record":
		d, err = th.RecordFailure(kIP, st.at)
	case "cancel":
		return fmt.Sprint(th.CancelReserved(kIP, ids[st.name]))[:0]
	case "purge":
		if _, err = th.PurgeExpired(st.at); err != nil {
			t.Fatalf("%s(%s): %v", st.op, st.name, err)
		}
		return fmt.Sprintf("reservations %d", mem.Reservations())
	}
	if err != nil {
		t.Fatalf("%s(%s): %v", st.op, st.name, err)
	}
	return render(d)
}

// TestReserveBoundsConcurrentAttempts reserves 100 attempts at once on one
// key through four throttles ("nodes") over one MemStore: with threshold 3
// exactly 3 are reserved, whatever the interleaving.
func TestReserveBoundsConcurrentAttempts(t *testing.T) {
	mem := newMem(t, 3)
	var ths []*throttle.Throttle
	for range 4 {
		th, err := throttle.New(mem, cfg(3, 900, 900))
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	made := 0
	for i := range 100 {
		wg.Go(func() {
			r, err := ths[i%4].Reserve(kIP, t0, 0)
			if err != nil {
				t.Errorf("Reserve: %v", err)
			}
			if r.ID != "" {
				mu.Lock()
				made++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if made != 3 || mem.Reservations() != 3 {
		t.Errorf("100 concurrent Reserves at threshold 3: %d made, %d held; want 3, 3", made, mem.Reservations())
	}
}

// TestReserveOnAFullStore holds MaxKeys (2) reservations: a third fails
// with ErrFull and reserves nothing while they count, and succeeds once
// they have left the window (the sweep of a full store drops them).
func TestReserveOnAFullStore(t *testing.T) {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3, MaxKeys: 2})
	if err != nil {
		t.Fatal(err)
	}
	th, err := throttle.New(mem, cfg(3, 10, 50))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b"} {
		if r, err := th.Reserve(key, t0, 0); err != nil || r.ID == "" {
			t.Fatalf("Reserve(%s, t0) = %+v, %v", key, r, err)
		}
	}
	var se *throttle.StoreError
	if r, err := th.Reserve("c", t9, 0); !errors.As(err, &se) || se.Op != throttle.OpReserve || !errors.Is(err, throttle.ErrFull) || r.ID != "" {
		t.Errorf("Reserve(c, t9) with 2 held = %+v, %v; want a reserve StoreError wrapping ErrFull", r, err)
	}
	if r, err := th.Reserve("c", t10, 0); err != nil || r.ID == "" || mem.Reservations() != 1 {
		t.Errorf("Reserve(c, t10) = %+v, %v, %d held; want reserved, the two of t0 swept", r, err, mem.Reservations())
	}
}

// TestReserveUnsupported checks that a throttle over a store without
// reservations (a FaultStore) says so, and that its reservation calls
// fail with errors.ErrUnsupported and do nothing.
func TestReserveUnsupported(t *testing.T) {
	th, err := throttle.New(throttle.NewFaultStore(newMem(t, 3)), cfg(3, 10, 50))
	if err != nil {
		t.Fatal(err)
	}
	if th.Reserves() {
		t.Errorf("Reserves() over a FaultStore = true, want false")
	}
	_, err1 := th.Reserve(kIP, t0, 0)
	_, err2 := th.FailReserved(kIP, "x", t0)
	err3 := th.CancelReserved(kIP, "x")
	for i, err := range []error{err1, err2, err3} {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("call %d: err %v, want errors.ErrUnsupported", i, err)
		}
	}
	if d := th.Check(kIP, t0); d != allow(3) {
		t.Errorf("Check after them = %+v, want Allow 3", d)
	}
}
