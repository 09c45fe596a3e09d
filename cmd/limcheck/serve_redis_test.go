package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
)

// When its redis-server dies, limcheck serve -redis answers each op as it
// fails, with a fault naming redis unavailable (or, for an admit that was
// sent on the broken connection, no reply): it does not hold the
// replies of a pipelined window until its last op has waited out its own
// failure, which limcheck took for a hung port (issue 27, item 9).
func TestServeRedisAnswersEachOpWhenRedisDies(t *testing.T) {
	srv := redistest.Start(t)
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	t.Cleanup(func() { reqW.Close(); repR.Close() })
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- cli{stdin: reqR, stdout: repW, stderr: &stderr}.serveCmd([]string{"-redis", srv.Addr()})
		repW.Close()
	}()
	type reply struct {
		line string
		at   time.Time
	}
	replies := make(chan reply, 16)
	go func() {
		sc := bufio.NewScanner(repR)
		for sc.Scan() {
			replies <- reply{sc.Text(), time.Now()}
		}
		close(replies)
	}()
	within := slowdown.Scale(30 * time.Second)
	next := func(what string) reply {
		t.Helper()
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatalf("serve ended before the %s; stderr: %s", what, stderr.String())
			}
			return r
		case <-time.After(within):
			t.Fatalf("no %s within %v", what, within)
		}
		return reply{}
	}
	send := func(lines ...string) {
		t.Helper()
		if _, err := io.WriteString(reqW, strings.Join(lines, "\n")+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next("hello")
	send(`{"seq":1,"inst":1,"component":"gate","config":{"gate":{"cap":"2","refil":"1","ivl":"10","maxif":"10","sets":"64","ways":"4","tick_nanos":"100000000","seed":"00000000000000000000000000000000"}},"op":"open"}`)
	if r := next("reply to the open"); r.line != `{"seq":1,"result":{}}` {
		t.Fatalf("open: reply = %s, want {}", r.line)
	}
	srv.Kill()
	const ops = 6 // in one write: serve has the later ones buffered while it answers the first
	var window []string
	for i := range ops {
		window = append(window, `{"seq":`+strconv.Itoa(i+2)+`,"inst":1,"op":"admit","now":"0","ip":"a"}`)
	}
	send(window...)
	var got []reply
	for i := range ops {
		r := next("reply to admit " + strconv.Itoa(i+2))
		// An admit sent on the connection the kill broke got no reply: it
		// may have run (DIST-5); the later ones found connects refused.
		seq := `{"seq":` + strconv.Itoa(i+2) + `,"fault":`
		if !strings.HasPrefix(r.line, seq+`"redisgate: redis unavailable, no effect: `) && !strings.HasPrefix(r.line, seq+`"redisgate: no reply to an admit, it may have taken effect: `) {
			t.Fatalf("admit %d: reply = %s, want a fault that starts %s\"redisgate: redis unavailable, no effect: or %s\"redisgate: no reply to an admit", i+2, r.line, seq, seq)
		}
		got = append(got, r)
	}
	// Each failed admit retries for a while (at least its 30ms of backoff):
	// the first reply comes well before the last (5 such admits, less the
	// 20ms serve may hold a reply), not with it.
	gap := got[ops-1].at.Sub(got[0].at)
	t.Logf("first to last fault: %v", gap)
	if gap < 50*time.Millisecond {
		t.Errorf("the %d faults came within %v of each other: serve held the first until the last op failed", ops, gap)
	}
	reqW.Close()
	if st := <-done; st != report.ExitOK {
		t.Errorf("serve -redis exited %d, want 0; stderr: %s", st, stderr.String())
	}
}
