// Command apiserver is an example API server limited by impl/httplimit,
// with small limits so that a few requests show them:
//
//   - one Limiter in front of a Go 1.22 ServeMux: 64 requests in flight in
//     all and 8 per address, a bucket of 20 per address (2 more a second);
//   - GET /api/ routes behind a policy "api" keyed by the X-API-Key header:
//     a bucket of 5 per key, one more a second; a request without a key
//     gets 401;
//   - POST /login behind a policy "login" (3 a minute per address) and the
//     login guard (a ban after 5 failures within 15 minutes, on the address
//     and on the account);
//   - a limited request gets 429 (a shed, when the server is full, 503),
//     and every limited route the RateLimit-Policy and RateLimit fields of
//     the IETF draft and the X-RateLimit trio, with Retry-After on a refusal;
//   - Prometheus metrics of every decision, of the requests in flight and
//     of the login guard's alarms at GET /metrics, which is not limited.
//
// Try it:
//
//	go run ./examples/apiserver -addr 127.0.0.1:8080
//	curl -i -H 'X-API-Key: k1' http://127.0.0.1:8080/api/hello
//	curl -i -d user=alice -d password=wrong http://127.0.0.1:8080/login
//	curl http://127.0.0.1:8080/metrics
//
// It prints "apiserver: listening on http://ADDR" once it listens, and
// stops on SIGINT or SIGTERM. The demo account is alice / s3cret, and any
// API key is accepted (a real service checks it before the policy sees
// it, or keys by the user its auth middleware found: httplimit.ContextKey).
package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/limcheck/limcheck/contrib/prommetrics"
	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr); err != nil {
		log.Fatal(err)
	}
}

// run serves the example on addr until ctx is done.
func run(ctx context.Context, addr string) error {
	reg := prometheus.NewRegistry()
	metrics, err := prommetrics.New(reg)
	if err != nil {
		return err
	}
	l, err := limiter(metrics)
	if err != nil {
		return err
	}
	perKey, err := l.NewPolicy(httplimit.PolicyConfig{
		Name: "api", Cap: 5, Refil: 1, Ivl: 10, // 5 per API key, one more a second
		Key: httplimit.HeaderKey("X-API-Key", 64).OrRefuse(http.StatusUnauthorized, `ApiKey realm="api"`),
	})
	if err != nil {
		return err
	}
	perLogin, err := l.NewPolicy(httplimit.PolicyConfig{
		Name: "login", Cap: 3, Refil: 3, Ivl: 600, // 3 a minute per address (the zero Key)
	})
	if err != nil {
		return err
	}
	guard, err := loginGuard(metrics)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/hello", perKey.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	})))
	mux.Handle("GET /api/items/{id}", perKey.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "item %s\n", r.PathValue("id"))
	})))
	mux.Handle("POST /login", perLogin.Wrap(login(l, guard)))
	root := http.NewServeMux()
	root.Handle("/", l.Wrap(mux)) // the Limiter first, then the route's policy
	root.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return serve(ctx, addr, root)
}

// limiter is the Limiter every route but /metrics is behind: a bucket of
// 20 per client address (2 more a second), 64 requests in flight in all
// and 8 per address, 429 for a limited request, the RateLimit header
// fields, every decision (its own, as policy "address", and its
// policies') reported to m.
func limiter(m httplimit.Metrics) (*httplimit.Limiter, error) {
	g, err := gate.New(gate.Config{
		Lim:       lim.NewConfig(20, 2, 10, 64), // burst 20, +2 tokens per 10 ticks, 64 in flight
		Sets:      1024,
		Ways:      8,
		TickNanos: 100_000_000, // a tick is 0.1 s
	})
	if err != nil {
		return nil, err
	}
	return httplimit.New(g,
		httplimit.WithMaxInFlightPerKey(8),
		httplimit.WithLimitedStatus(http.StatusTooManyRequests), // a shed (the server is full) stays 503
		// The RateLimit fields of the IETF draft; not the X-RateLimit trio here, whose
		// X-RateLimit-Remaining the login guard sets to the failures left.
		httplimit.WithFields(httplimit.RateLimitFields),
		httplimit.WithPolicyName("address"),
		httplimit.WithMetrics(m),
	)
}

// loginGuard bans an address or an account for 15 minutes after 5 failed
// logins within 15 minutes, reporting its alarms to m.
func loginGuard(m httplimit.Metrics) (*httplimit.LoginGuard, error) {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		return nil, err
	}
	t, err := throttle.New(mem, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900})
	if err != nil {
		return nil, err
	}
	return httplimit.NewLoginGuard(t, httplimit.LoginConfig{Metrics: m})
}

// passwords is the demo's one account.
var passwords = map[string]string{"alice": "s3cret"}

// login begins an attempt for the form's user, refuses it (429 while
// banned or busy, 503 when the guard is full) or checks the password,
// settles the attempt and answers 401 or 200 with X-RateLimit-Remaining:
// the failures left before a ban.
func login(l *httplimit.Limiter, guard *httplimit.LoginGuard) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 4096)
		ip, _ := l.ClientKey(r)
		user := r.PostFormValue("user")
		a := guard.Begin(ip, user)
		defer a.Close() // a panic before the outcome counts as a failed guess
		if a.Verdict != httplimit.LoginProceed {
			a.WriteRefusal(w)
			return
		}
		if !checkPassword(user, r.PostFormValue("password")) {
			d, _ := a.Failed() // an error here was an alarm; the guard kept the failure
			guard.WriteHeaders(w, d)
			code := http.StatusUnauthorized
			if d.Verdict == throttle.Banned {
				code = http.StatusTooManyRequests
			}
			http.Error(w, "bad credentials", code)
			return
		}
		_ = a.Succeeded() // an error is an alarm, not a reason to refuse the user
		guard.WriteHeaders(w, guard.Check(ip, user))
		fmt.Fprintln(w, "welcome")
	}
}

// checkPassword compares in constant time against the demo account.
func checkPassword(user, password string) bool {
	acct, _ := httplimit.NormalizeAccount(user)
	want, ok := passwords[acct]
	return ok && subtle.ConstantTimeCompare([]byte(password), []byte(want)) == 1
}

// serve listens on addr, says where, and serves h with the timeouts the
// limit needs (httplimit's package documentation) until ctx is done.
func serve(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	fmt.Printf("apiserver: listening on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
