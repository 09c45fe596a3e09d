package protocol

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

// filterPort is Serve on the model behind a rewrite of each request line,
// in process as ServePipe: a port whose driver maps instance ids its own
// way; the caller closes it. rewrite sees the line's op and inst and returns the line Serve gets.
func filterPort(t *testing.T, rewrite func(line []byte, op string, inst int64) []byte) *Port {
	t.Helper()
	hello := Hello{Protocol: Protocol, Name: "ids", Version: "0", Components: oracle.Components()}
	reqR, reqW := io.Pipe()
	filR, filW := io.Pipe()
	repR, repW := io.Pipe()
	go func() {
		in := bufio.NewScanner(reqR)
		in.Buffer(nil, maxLine+1)
		for in.Scan() {
			m, op := instField.FindSubmatch(in.Bytes()), opField.FindSubmatch(in.Bytes())
			line := in.Bytes()
			if m != nil && op != nil {
				inst, _ := strconv.ParseInt(string(m[1]), 10, 64)
				line = rewrite(line, string(op[1]), inst)
			}
			if _, err := filW.Write(append(line, '\n')); err != nil {
				break
			}
		}
		filW.Close()
	}()
	exited := make(chan exitInfo, 1)
	go func() {
		err := Serve(filR, repW, oracle.Model{}, hello)
		repW.CloseWithError(io.EOF)
		filR.CloseWithError(io.ErrClosedPipe)
		reqR.CloseWithError(io.ErrClosedPipe)
		exited <- exitInfo{ok: err == nil, how: "exit status 0"}
	}()
	kill := func() {
		reqR.CloseWithError(io.ErrClosedPipe)
		filR.CloseWithError(io.ErrClosedPipe)
		repR.CloseWithError(io.ErrClosedPipe)
	}
	p, err := newPort(transport{stdin: reqW, stdout: repR, kill: kill, exited: exited}, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	instField = regexp.MustCompile(`"inst":(-?[0-9]+)`)
	opField   = regexp.MustCompile(`"op":"([a-z_0-9]+)"`)
)

// withInst returns line with its inst replaced by inst and, when op is not
// empty, its op by op.
func withInst(line []byte, op string, inst int64) []byte {
	line = instField.ReplaceAll(line, []byte(`"inst":`+strconv.FormatInt(inst, 10)))
	if op != "" {
		line = opField.ReplaceAll(line, []byte(`"op":"`+op+`"`))
	}
	return line
}

// idBudget is the fuzz runs' bound here: a few hundred traces, each id
// policy's cycle many times over.
var idBudget = search.FuzzOptions{Seed: 1, Ops: 10_000, Isolation: 4, ShrinkRuns: 300}

// TestInstsReachReuseAndLargeIDs: over a fuzz run, the ids a Port gives
// (PROTO-3) reuse an id after its close and reach 2^53-1, 2^53-2 and each
// side of 2^16, 2^31 and 2^32, never reusing an id while its instance is
// open and staying in 1..2^53-1; a twin's instances are consecutive
// (PROTO-12). The model behind the ids finds nothing.
func TestInstsReachReuseAndLargeIDs(t *testing.T) {
	var mu sync.Mutex
	open, closed := map[int64]bool{}, map[int64]bool{}
	seen := map[string]bool{}
	var problems []string
	p := filterPort(t, func(line []byte, op string, inst int64) []byte {
		mu.Lock()
		defer mu.Unlock()
		if inst < 1 || inst >= 1<<53 {
			problems = append(problems, "inst out of range: "+string(line))
		}
		switch op {
		case "open":
			if open[inst] {
				problems = append(problems, "open of an open inst: "+string(line))
			}
			if closed[inst] {
				seen["reuse after close"] = true
			}
			if open[inst-1] {
				seen["twin"] = true
			}
			for _, e := range []struct {
				id   int64
				name string
			}{{1<<53 - 1, "2^53-1"}, {1<<53 - 2, "2^53-2"}, {1<<16 - 1, "2^16-1"}, {1 << 16, "2^16"},
				{1<<31 - 1, "2^31-1"}, {1 << 31, "2^31"}, {1<<32 - 1, "2^32-1"}, {1 << 32, "2^32"}} {
				if inst == e.id {
					seen[e.name] = true
				}
			}
			open[inst] = true
		case "close":
			delete(open, inst)
			closed[inst] = true
		}
		return line
	})
	rep, err := search.Fuzz(p, idBudget)
	p.Close() //nolint:errcheck // the fuzz run's error is the news
	if err != nil || rep.Found != nil {
		t.Fatalf("Fuzz(model behind Serve) = found %v, %v; want nothing", rep.Found != nil, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, pr := range problems[:min(len(problems), 5)] {
		t.Error(pr)
	}
	for _, f := range []string{"reuse after close", "twin", "2^53-1", "2^53-2", "2^16-1", "2^16", "2^31-1", "2^31", "2^32-1", "2^32"} {
		if !seen[f] {
			t.Errorf("over %d traces the ids never reached %q (seen: %v)", rep.Traces, f, seen)
		}
	}
}

// TestFuzzFindsPortsThatMapIDsWrong: a fuzz run finds a port whose driver
// keeps a closed instance and gives it back when its id returns (an open
// of a known id keeps the instance: reuse after close, PROTO-3), and one
// that cannot hold an id past int32 (it faults on the open). The second is
// confirmed alone on a fresh port: a trace run alone opens on 2^53-2.
func TestFuzzFindsPortsThatMapIDsWrong(t *testing.T) {
	tests := []struct {
		name    string
		rewrite func() func(line []byte, op string, inst int64) []byte
		confirm bool
	}{
		{"open keeps a closed instance", func() func([]byte, string, int64) []byte {
			known := map[int64]bool{}
			return func(line []byte, op string, inst int64) []byte {
				switch {
				case op == "close":
					return withInst(line, "", 0) // forgets nothing: inst 0 is never open
				case op == "open" && known[inst]:
					return withInst(line, "close", 0) // {} and the old instance stays
				case op == "open":
					known[inst] = true
				}
				return line
			}
		}, false},
		{"ids past int32 fault", func() func([]byte, string, int64) []byte {
			return func(line []byte, op string, inst int64) []byte {
				if inst > 1<<31-1 {
					return withInst(line, "lim_rel", 0) // a fault: no open instance 0
				}
				return line
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := idBudget
			opt.Fresh = func() (judge.Runner, func() error, error) {
				p := filterPort(t, tt.rewrite())
				return p, p.Close, nil
			}
			p := filterPort(t, tt.rewrite())
			rep, err := search.Fuzz(p, opt)
			p.Close() //nolint:errcheck // a port that faults may end broken
			if err != nil {
				t.Fatal(err)
			}
			if rep.Found == nil {
				t.Fatalf("Fuzz found nothing in %d traces, %d ops", rep.Traces, rep.Ops)
			}
			t.Logf("found at trace %d; confirmation %q; shrink %v, elapsed %v\n%s", rep.Found.Index, rep.Found.Confirmation, rep.Found.ShrinkTime, rep.Elapsed, rep.Found.Report(tt.name))
			if tt.confirm && rep.Found.Confirmation != search.Confirmed {
				t.Errorf("Confirmation = %q, want %q", rep.Found.Confirmation, search.Confirmed)
			}
		})
	}
}
