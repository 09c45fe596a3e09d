package httplimit_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// The slow uploads of issue 24, through a real loopback server: attackers
// from 40 distinct /64s of 2001:db8:1::/48 (X-Forwarded-For from the
// trusted loopback proxy) each send a POST whose body trickles a byte a
// tenth of a second and never ends, and send it again as soon as it is
// answered or cut. The gate has 32 places and a per-key cap of 4, the
// README's 512 and 8 scaled down; the victim, 2001:db8:2::7, is of another
// /48.

const (
	slowPlaces    = 32
	slowPerKey    = 4
	slowPerPrefix = 8
	slowAttackers = 40 // more /64s than places: the per-key cap never binds
	slowVictim    = "2001:db8:2::7"
)

// slowServer serves a limiter with opts over a gate of slowPlaces places
// on a loopback server with the given timeouts, behind the trusted proxy
// 127.0.0.1. Its handler reads the body; it counts the attackers' requests
// (POSTs) inside it, now and at most, and the ones that got in.
type slowServer struct {
	url               string
	inFlight          func() int64
	attackersIn, most atomic.Int64
	attackerEntries   atomic.Int64
}

func newSlowServer(t *testing.T, readHeader, upload time.Duration, opts ...httplimit.Option) *slowServer {
	g := newGate(t, 1<<40, 1<<40, 1, slowPlaces, 1)
	opts = append(opts, httplimit.WithMaxInFlightPerKey(slowPerKey),
		httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("127.0.0.1/32")...))
	l := newLimiter(t, g, opts...)
	s := &slowServer{inFlight: g.InFlight}
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			s.attackerEntries.Add(1)
			n := s.attackersIn.Add(1)
			for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
			}
			defer s.attackersIn.Add(-1)
		}
		_, _ = io.Copy(io.Discard, r.Body) // a slow body holds the place until ReadTimeout
	}))
	s.url = loopbackServer(t, &http.Server{Handler: h, ReadHeaderTimeout: readHeader, ReadTimeout: upload,
		WriteTimeout: 2 * upload, IdleTimeout: 4 * upload})
	return s
}

// attack starts the attackers, each making at most 1000 uploads, and
// returns a function that stops them and waits for them to end (safe to
// call again).
func (s *slowServer) attack() (halt func()) {
	addr := strings.TrimPrefix(s.url, "http://")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range slowAttackers {
		wg.Go(func() {
			for range 1000 {
				select {
				case <-stop:
					return
				default:
				}
				slowUpload(addr, fmt.Sprintf("2001:db8:1:%x::1", i+1), stop)
				time.Sleep(100 * time.Millisecond) // then again, at once for an attacker
			}
		})
	}
	return sync.OnceFunc(func() { close(stop); wg.Wait() })
}

// slowUpload POSTs from client (an X-Forwarded-For value) a body that
// announces 1 MB and trickles a byte a tenth of a second, until the server
// answers or closes the connection, or stop is closed. It returns the
// status, 0 for none.
func slowUpload(addr, client string, stop <-chan struct{}) int {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: limcheck\r\nX-Forwarded-For: %s\r\nContent-Length: 1000000\r\n\r\n", client)
	br := bufio.NewReader(conn)
	for range 1_000_000 {
		select {
		case <-stop:
			return 0
		default:
		}
		_, _ = conn.Write([]byte{'x'}) // a closed connection shows on the read
		_ = conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := br.Peek(1)
		var ne net.Error
		switch {
		case err == nil:
			_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return 0
			}
			resp.Body.Close()
			return resp.StatusCode
		case !errors.As(err, &ne) || !ne.Timeout():
			return 0 // closed without an answer
		}
	}
	return 0
}

// victim sends n GETs from slowVictim and returns how many passed; each
// other status it reports to t when want is 200.
func (s *slowServer) victim(t *testing.T, c *http.Client, n, want int) int {
	t.Helper()
	passed := 0
	for i := range n {
		code := fetch(t, c, s.url, slowVictim)
		if code == http.StatusOK {
			passed++
		}
		if code != want {
			t.Errorf("victim request %d: %d, want %d", i, code, want)
		}
	}
	return passed
}

// TestSlowUploadsFromOnePrefix: with WithMaxInFlightPerPrefix(/24, /48, 8)
// the attackers hold at most 8 places at any time, and the victim passes
// all its requests while they hold them, and again after ReadTimeout cut
// the first wave and a second took the 8 places back. The server has the
// README's timeouts shortened: ReadTimeout 1 s (times
// LIMCHECK_TEST_SLOWDOWN), WriteTimeout and IdleTimeout in the README's
// proportion, ReadHeaderTimeout as long as ReadTimeout (no attacker here is
// slow in its header, and a loaded machine must never cut the victim's).
func TestSlowUploadsFromOnePrefix(t *testing.T) {
	upload := slowScaled(t, time.Second)
	s := newSlowServer(t, upload, upload,
		httplimit.WithMaxInFlightPerPrefix(httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: slowPerPrefix}))
	client := &http.Client{Timeout: time.Minute}
	defer client.CloseIdleConnections()
	halt := s.attack()
	defer halt()
	waitFor(t, "the attackers to hold their /48's places", func() bool { return s.attackersIn.Load() >= slowPerPrefix })
	s.victim(t, client, 27, http.StatusOK) // the 27, which passed 0
	waitFor(t, "a second wave after ReadTimeout", func() bool {
		return s.attackerEntries.Load() >= 2*slowPerPrefix && s.attackersIn.Load() >= slowPerPrefix
	})
	s.victim(t, client, 27, http.StatusOK)
	if m := s.most.Load(); m != slowPerPrefix {
		t.Errorf("the attackers held at most %d places at once, want %d (their /48's cap)", m, slowPerPrefix)
	}
	halt()
	waitFor(t, "the places back", func() bool { return s.inFlight() == 0 })
}

// TestSlowUploadsWithoutPrefixCap is the attack as filed, with the README's
// timeouts (times LIMCHECK_TEST_SLOWDOWN) and only WithMaxInFlightPerKey:
// the 40 /64s hold all 32 places and the victim is shed every time.
func TestSlowUploadsWithoutPrefixCap(t *testing.T) {
	s := newSlowServer(t, slowScaled(t, 5*time.Second), slowScaled(t, 30*time.Second))
	client := &http.Client{Timeout: time.Minute}
	defer client.CloseIdleConnections()
	halt := s.attack()
	defer halt()
	waitFor(t, "the attackers to fill the gate", func() bool { return s.inFlight() == slowPlaces })
	passed := s.victim(t, client, 5, http.StatusServiceUnavailable)
	halt()
	if passed != 0 {
		t.Errorf("the victim passed %d of 5 with the gate full, want 0", passed)
	}
	waitFor(t, "the places back", func() bool { return s.inFlight() == 0 })
}

// slowScaled is d times LIMCHECK_TEST_SLOWDOWN, the module's knob for slow
// machines (internal/slowdown, which impl's tests may not import: impl
// stands alone), 1 when it is unset.
func slowScaled(t *testing.T, d time.Duration) time.Duration {
	v := os.Getenv("LIMCHECK_TEST_SLOWDOWN")
	if v == "" {
		return d
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 1 && f <= 1000) {
		t.Fatalf("LIMCHECK_TEST_SLOWDOWN=%q: want a number from 1 to 1000", v)
	}
	return time.Duration(float64(d) * f)
}
