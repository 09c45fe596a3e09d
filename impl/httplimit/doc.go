// Package httplimit is the net/http face of the optimized limiters: a
// middleware over impl/gate (per-client token buckets, a global in-flight
// gate and spec.md's 503) and a login guard over impl/throttle (seed 003's
// failure counter with bans).
//
// # Middleware
//
// [New] builds a [Limiter] over a [gate.Gate]; [Limiter.Wrap] puts it in
// front of a handler. Per request:
//
//  1. The client key (below) is computed.
//  2. With [WithMaxInFlightPerKey](n), a key with n requests in flight is
//     answered as a shed (step 4) before the gate is asked: it spends no
//     token and takes no place. Then, with [WithMaxInFlightPerPrefix], so
//     is a request whose address prefix (a /24, a /48) has its cap in
//     flight; a request shed here gives back the key's place it took.
//  3. The gate admits the key, as bytes ([gate.Gate.AdmitBytes]), at its
//     monotonic tick ([gate.Gate.Now]) or at the tick of [WithClock].
//  4. Shed or Limited: the 503 of spec LIM-17 (a Limited one gets 429 with
//     [WithLimitedStatus](429)) is written through net/http:
//     status 503, Retry-After (the decision's RetryAfter: the bucket's wait
//     rounded up to seconds, 1 for a shed; digits from strconv only, never
//     request bytes), Content-Type text/plain; charset=utf-8, Content-Length
//     12 and the body "lim rejected", and, as HTTP framing around those
//     bytes, Cache-Control: no-store (a rejection is about one client at one
//     moment: no cache may store it or serve it to another). net/http adds
//     Date and writes its own status line and header order; the raw bytes of
//     lim_resp_503 (spec LIM-17, unchanged) are what a server writing to a
//     socket itself sends ([gate.Decision.AppendResponse]). With
//     [WithTrueRetryAfter], a Limited 503's Retry-After is the true wait to
//     the end of the bucket's step instead of the spec's value (spec FIND-1:
//     the spec's can be far too early when refil > 1; see the option).
//     Headers set earlier by outer middleware stay. Then the
//     [WithOnReject] hook runs. No in-flight place is held.
//  5. Pass: the next handler runs, and the in-flight place (and the per-key
//     and per-prefix ones) is released exactly once when it returns, by a
//     deferred call:
//     also when it panics (the panic, http.ErrAbortHandler included, goes on
//     to net/http). The place is held until the handler returns, so a
//     hijacked or streaming handler holds it for as long as it runs.
//
// # Dividing the gate
//
// The gate's maxif places are one pool for every client (spec FIND-9: the
// in-flight cap is global, not per address), so whoever holds them all
// sheds everyone else. Two options divide the pool:
//
//   - [WithMaxInFlightPerKey](n): one key (an IPv4 address, an IPv6 /64)
//     holds at most n places, so filling the gate takes maxif/n keys in
//     flight at once: 64 for the README's 512 places and n = 8.
//   - [WithMaxInFlightPerPrefix]([PrefixCap]{IPv4Bits, IPv6Bits, Max}): one
//     prefix of the client address (a /24, a /48) holds at most Max places,
//     so filling the gate takes maxif/Max prefixes, and a party with k
//     prefixes leaves maxif - k*Max places to everyone else. A /48 holds
//     65536 /64 keys: under the per-key cap alone, 80 slow uploaders from
//     80 /64s of one /48 held all 512 places (issue 24). Honest clients
//     behind one prefix (a carrier-grade NAT, an office) share its Max.
//
// Neither is a reservation: a key or prefix under its cap is still shed
// when the gate is full. Each cap counts in a table of its own, bounded
// whatever the number of clients: 4*maxif counters rounded up to a power of
// two, at least 256 and at most 65536, indexed by a hash of the key (or of
// the masked address) with a seed drawn at random for each Limiter. Keys
// that land on one counter share its cap: together they hold at most n
// places. So a collision can shed a request that its key alone would not
// have, and never admits one over its cap. Only passed requests hold a
// count for longer than the decision, so at most maxif/n counters are full
// at once, and a key lands on a full one with probability at most
// maxif/(n*size), at most 1/(4n) while maxif <= 16384 (1/32 for the
// README's n = 8, and that only while 64 keys fill the gate). The seed is
// fixed for the Limiter's life: a key that shares a busy key's counter
// shares it on every request until the process restarts, and without the
// seed no one can compute which keys collide. The counts are the
// Limiter's own; over a Gate shared by several nodes ([NewFor]) they cap
// each node.
//
// # Server timeouts
//
// They are part of the limit, not an option: configure the http.Server with
// ReadHeaderTimeout (a slow header is read before admission and holds no
// place, but holds a connection), ReadTimeout (a handler reading a slow body
// holds its place until the read fails), WriteTimeout (the same for a client
// that reads slowly) and IdleTimeout. Without them one client that uploads
// a byte a second holds a place per request for as long as it likes, and the
// in-flight gate sheds everyone else. The caps above bound how many places
// slow clients hold; the timeouts bound how long one request holds its
// place, not how long an attacker holds places: it sends again as soon as
// a request is cut, so under attack a prefix's places stay taken, and only
// the caps keep the rest free. The README's example sets all four.
//
// ReadTimeout is counted by net/http from the start of the request's read,
// header included, so a handler that reads the body holds its place for at
// most ReadTimeout, however slowly the body comes (a handler that does not
// read it holds no place for it: net/http discards what is left after the
// handler has returned). Choose it from the bodies the handlers take:
//
//	ReadTimeout = ReadHeaderTimeout + largest body / slowest honest upload rate
//
// and bound the largest body in the handler (http.MaxBytesReader), so that
// it is what the formula assumes. The README's values follow it: 5 s for
// the header plus 1 MB at 40 kB/s (320 kbit/s, a poor mobile uplink) for
// the body is its 30 s. A larger ReadTimeout lets each slow request hold its
// place longer; a smaller one cuts honest slow uploads. A route that takes
// larger bodies can extend its own read deadline
// (http.NewResponseController(w).SetReadDeadline) rather than raise
// ReadTimeout for every route.
//
// # Sizing the gate
//
// The [gate.Gate] a Limiter runs over is a fixed table of Sets*Ways ways
// (spec "What the table guarantees", PROP-26, PROP-27, FIND-27, DEC-57).
// Leave its Config's Seed nil in production: [gate.New] then draws a
// secret seed, so that no one can compute addresses that share a set. Size
// it so that the live addresses, those whose bucket is not full (seen
// within cap/refil*ivl ticks), are at most half of Sets*Ways, with Ways >=
// 8: the README's example, 8192 sets of 8 ways, fits 32,768 clients active
// within a bucket's refill time. A set that holds more live keys than its
// ways admits newcomers only at one bucket's rate (its eviction budget,
// spec FIND-27: they get 503 with the budget's Retry-After), and a flood
// gains at most one address's worth per set it overflows; with that sizing
// about 2% of sets overflow at half load, so a flood passes no more than
// its addresses' own limits.
//
// # Allocation
//
// With the client address as its key (the default), the middleware
// allocates nothing per request, on every path: a pass, the
// 503 of a shed, a per-key or per-prefix shed or a limited request (true
// Retry-After included), the 400 of [WithRejectInvalid]; a key of IPv4, of IPv6 by
// prefix or by address ([WithIPv6Prefix](128)), from the peer or from a
// trusted proxy's header of any length (1 hop or 1 MiB), or [InvalidKey]. A
// test pins each path. Not counted: net/http makes a fresh header map per
// request, and its first insert allocates, whoever makes it; the next
// handler and the [WithClock] and [WithOnReject] functions allocate what
// they allocate.
// The bounds, none of them met per request by a working deployment:
//
//   - Retry-After values come from a cache shared by the process and built
//     a page of 256 values at a time, by the first 503 that needs a value of
//     the page (at most 512 pages, about 6 KB each). A Retry-After of 2^17 s
//     (36 h 24 min) or more is formatted per response: two small
//     allocations.
//   - An address that does not parse costs netip's error (one allocation)
//     unless it holds a byte that no address can hold (a Unix socket's "@"
//     or "", a proxy's "unknown" or "_name"); text such as "1.2.3" pays it.
//
// # Shared header values
//
// The value slices that the middleware puts into the header map for the
// 503 and the 400 (Retry-After, Content-Type, Content-Length, the 503's
// Cache-Control) are shared by every response: that is how writing them
// allocates nothing. Each has length and capacity 1 and is never written
// after it is built. Header's
// methods never write into a value slice (Set and Del replace or drop the
// map entry, Add appends to a full slice and so copies it, Clone copies),
// nor does net/http, which snapshots the map at WriteHeader; an OnReject
// hook is not given the ResponseWriter. So code that sees the map after the
// middleware has answered (an outer middleware, a recorder) may read,
// replace, delete or add to these entries, but must not write into their
// elements in place (h[k][0] = v, copy into h[k], sorting it,
// append(h[k][:0], v)): that would change the header of later responses.
// Go cannot make a slice read-only, and a fresh slice per response is the
// allocation this design removes; the rule is the one net/http's Header
// methods already keep.
//
// # Client keys
//
// The key is the client address canonicalised (spec FIND-3, spec FIND-12):
// netip's parse, then Unmap and WithZone(""), then String. So
// "::ffff:10.0.0.1" and "10.0.0.1" share a key, as do all spellings of one
// IPv6 address, and no byte of the request reaches the key unparsed.
//
//   - The peer is r.RemoteAddr: host:port (netip.ParseAddrPort), else a bare
//     or bracketed address (netip.ParseAddr).
//   - IPv6 clients are keyed by their /64 ([DefaultIPv6PrefixBits], the key
//     is the masked prefix, e.g. "2001:db8:1:2::/64"): a single host controls
//     a whole /64 and its privacy addresses rotate, so keying by address
//     would hand it 2^64 buckets. [WithIPv6Prefix](128) keys by address.
//   - An address that does not parse (e.g. the peer of a Unix socket) keys
//     as [InvalidKey], one bucket shared by all such requests, never the raw
//     text (which would give an attacker a bucket per spelling); with
//     [WithRejectInvalid] such requests get a 400 instead and never reach
//     the gate.
//   - IPv6 forms of one IPv4 host are keyed as that IPv4 address: the NAT64
//     well-known prefix 64:ff9b::/96 (RFC 6052: IPv4 clients reaching an
//     IPv6 server through a translator) and the deprecated IPv4-compatible
//     ::a.b.c.d (but :: and ::1). Keyed by their /64, every IPv4 client of
//     the translator would share one bucket. A network-specific NAT64 prefix
//     (64:ff9b:1::/48 or an operator's own) cannot be recognised and stays
//     IPv6, keyed by /64. Trust is decided on the address as it arrived,
//     never on the embedded one.
//   - Proxy headers are read only with [WithTrustedProxies], and then only
//     the one header it names ([XForwardedFor] or [Forwarded]), and only when
//     the peer lies in a trusted prefix. Honouring both headers would let a
//     client forge the one the proxy does not write. Trust only the proxies'
//     own addresses: every host in a trusted prefix can write the header and
//     choose its key.
//   - The header is walked from the right, its last line first: trusted
//     proxies are skipped, and the first untrusted address is the client, so
//     addresses a client put in the header itself are never reached while a
//     trusted proxy appended a later one. The walk reads nothing left of
//     where it stops: its cost is that of the hops it inspects, whatever the
//     header's length, and it allocates nothing. It inspects at most
//     [MaxProxyHops] list elements (16, empty ones included); past them it
//     ends as if the header began there. If every address it inspected is
//     trusted, the leftmost of them is the client (a proxy: one shared
//     bucket). The header falls back to the peer (the proxy's own key, one
//     shared bucket) when it is absent or names no address within the cap,
//     when an entry met by the walk does not parse ("unknown", an obfuscated
//     "_name", garbage), or when a Forwarded element met by the walk breaks
//     RFC 7239's grammar (also an element with two for= pairs). Forwarded
//     values may be tokens or quoted strings, IPv6 bracketed with an optional
//     port: for="[2001:db8::1]:4711". Empty list elements are skipped.
//   - Forwarded's grammar is that of RFC 7239 section 4 as this package
//     reads it: elements separated by commas, each of optional pairs
//     separated by semicolons, a pair token "=" (token / quoted-string),
//     white space allowed around elements and pairs, a quoted string's
//     backslash escapes honoured (its other bytes unchecked). The walk finds
//     an element's left end by going left from its right end, outside quoted
//     strings, to the nearest comma (on a line that follows the grammar this
//     is the comma a parse from the left finds), then parses the element
//     from the left. So a client's malformed text left of where the walk
//     stops no longer makes the header fall back to the peer (it did before
//     this walk, which let a client push everyone behind its proxy into the
//     proxy's bucket); on headers within the cap whose every line follows
//     the grammar, the walk gives exactly the old parser's answer, and
//     otherwise the old parser's answer on a tail of the header (two
//     property tests compare them).
//
// [Limiter.ClientKey] exposes the key, e.g. for a [LoginGuard].
//
// # Login guard
//
// [LoginGuard] ([NewLoginGuard], [LoginConfig]) keys each login attempt as
// "ip:"+client and "acct:"+[NormalizeAccount](user) (the seed's
// convention). The flow, as the example's handler shows:
//
//	a := guard.Begin(ip, user)
//	defer a.Close() // a panic or early return counts as a failed guess
//	if a.Verdict != httplimit.LoginProceed {
//		a.WriteRefusal(w) // 429 banned, busy or limited; 503 when full
//		return
//	}
//	if !verify(user, password) { d, _ := a.Failed(); ... } else { _ = a.Succeeded() }
//
// Begin reserves the attempt before the password is verified: it reads
// the key's ban and count and adds a reservation, which counts as a failure
// until the attempt is settled (Failed turns it into the recorded failure;
// Succeeded gives it back, and clears the account's count as record_success
// does: see its doc for why the ip's is kept). A key with c failures in the
// window and p reservations and kept failures refuses a new attempt
// ([LoginBusy]) when p > 0 and c + p >= threshold. Where the reservation
// lives decides which attempts the bound below counts:
//
//   - A store that holds reservations ([throttle.ReserveStore]: MemStore,
//     impl/throttle/redisstore): the read and the reservation are one
//     atomic store operation ([throttle.Throttle.Reserve]), Failed turns
//     the reservation into the failure in one more, and p counts the
//     attempts in flight of every guard ("node") over the store. The bound
//     holds across nodes: 5 of 100 concurrent guesses at threshold 5
//     through 1, 2 or 4 guards over one MemStore
//     (TestGuessesAcrossNodesOverOneMemStore) or one redis-server
//     (fuzz/TestLoginGuessesAcrossNodesOverOneRedis).
//   - Any other store (a FaultStore, a Store of your own): the reservation
//     is a pending entry in the guard's table, read and written under the
//     key's lock in the guard, and p counts this guard's attempts only.
//     The bound holds per guard: N guards over one shared store check up to
//     N x threshold passwords of a burst (20 for 4 guards at threshold 5).
//     Use one guard per store, or a store that holds reservations.
//   - A store that cannot make a reservation when asked (down, full, a
//     Redis out of memory) gets the second way for that attempt, with
//     [AlarmUnavailable]: the bound falls back to per guard while it lasts.
//
// The bound: under any concurrency, for each key, its failures in the
// window plus its attempts being verified (in the scope above) never exceed
// threshold, but for one attempt let through when nothing is in flight
// (below). So a burst of any size, from one address or many, gets at most
// threshold - c passwords verified on a key with c failures in the window
// (5 of 100 concurrent guesses with threshold 5,
// TestConcurrentGuessesFromOneAddress), and the failure that reaches the
// threshold bans the key; Begin then refuses until the ban ends
// ([LoginBanned]). With nothing in flight (p = 0) Begin lets one attempt
// through even when c >= threshold, as the seed's check did (spec FIND-5:
// counts survive a ban, so its failure bans again): sequential use gives
// the decisions of check_any, record_failure and record_success, unchanged.
// Successes are not failures: a success proves the password, and on the
// account key it clears the count. The bound holds for attempts settled
// within a window of their Begin, and when guards are the only writers of
// their keys' failures (a failure recorded on the throttle directly is
// not weighed against the attempts already in flight, and can pass it by
// one).
//
// An attempt never settled cannot lock a key for good: its reservation (in
// the store, and its entry in the guard) expires when a failure stamped at
// Begin would leave the window (spec THR-4), and then counts for nothing,
// so a node that crashes with attempts in flight leaves nothing behind for
// longer than a window; [Attempt.Close], deferred, settles a panicking or
// returning handler's attempt as a failure, so a crash is never a free
// guess. A late settle of an expired attempt is still applied.
//
// Full store policy. A MemStore that is full reclaims the keys
// purge_expired(now) would drop (impl/throttle: they change no decision at
// now or later), so a store full of expired keys takes new ones. A store
// full of live keys refuses a new key's failure with throttle.ErrFull: the
// guard then keeps the failure itself, as a pending entry that counts until
// its window ends, and raises [AlarmKept] ([LoginConfig].OnAlarm, and
// [LoginStats].Kept): the key gets at most threshold failed verifications a
// window (no ban: the store cannot hold one), then [LoginBusy], a 429. The
// same holds for a store that fails (a fault). A kept failure counts in the
// guard that kept it only (its reservation in the store, if any, is given
// back so that it does not count twice there). The guard's own table holds
// at most MaxPending entries ([DefaultMaxPending]): its attempts in flight
// (those whose reservation the store holds too) and its kept failures. An
// entry leaves when it is settled, when its key is next touched after it
// left the window, or when the table is full: before it reports full, a
// full table sweeps out every entry out of the window at now (spec THR-4),
// so it is full only of entries that count, and an outage that filled it
// locks nobody out once the window has passed since. A sweep visits every
// entry (O(MaxPending), each shard under its lock in turn) and runs only on
// a full table, one goroutine at a time (another that finds the table full
// meanwhile is refused at once) and at most once per second of the clock
// (entries only expire as it advances; a clock set back by more than the
// window sweeps again): between sweeps a full table refuses in O(1). When
// it is full of entries that count, Begin fails closed with [LoginFull] (a
// 503) and [AlarmPendingFull]. Why not refuse every new key at once when
// the store is full: an attacker who
// fills the store with live keys would then lock every new user out of
// login; keeping the failures in a bounded table keeps the per-key bound and
// fails closed only when that table is full too. Memory stays bounded:
// MaxKeys records and at most MaxKeys reservations in a MemStore,
// MaxPending entries in the guard (each a map entry and its key, about 100
// bytes). A check that cannot read the store
// raises [AlarmUnavailable] and lets the attempt go ahead (the seed's
// advice), limited by the key's pending entries alone.
//
// Account lockout. The account key bans an account from every address:
// anyone who knows a user's name can lock them out, threshold guesses per
// ban (TestAccountLockout shows it). [LoginConfig].Accounts is the usual
// alternative: a gate ([AccountGate]: impl/gate, or impl/redisgate's
// HTTPGate for one across nodes; ticks of one second) of per-account token
// buckets replaces the account key: each attempt on an account takes a
// token, an attempt without one is refused as [LoginLimited] (429, Retry-After
// the true wait to the next token), and no account is ever banned. Guessing
// one account from many addresses is slowed to the bucket's rate (say 3 and
// one a minute); its owner competes with the attacker for tokens while the
// attack lasts, and logs in as soon as it stops. The ip key still bans. An
// account name keeps its own bucket in the gate's set-associative table
// (spec GATE-13); names equal under lim_ip_key share a bucket (spec FIND-2),
// which only makes limiting stricter.
//
// Never key by raw user input: an attacker would change it on every try and
// get fresh buckets; NormalizeAccount's documented rule trims, lowercases and
// caps the name and refuses empty or control-character names, and such a
// name contributes no account key at all. [LoginGuard.Check] reads the
// throttle without reserving (status pages, the headers of a success);
// [LoginGuard.WriteHeaders] sets X-RateLimit-Remaining and Retry-After; after
// a Limiter's X-RateLimit fields the strictest limit shows (its doc says how).
//
// # Keys beyond the address
//
// [WithKey] keys the Limiter's gate by a [Key] other than the address, and
// [PolicyConfig].Key a policy's buckets:
//
//   - [HeaderKey](name, maxLen): the one field line of a header, such as an
//     API key, byte for byte as net/http read it (white space around it
//     trimmed, case kept); invalid when absent, repeated, empty, longer
//     than maxLen, or holding a byte outside 0x21..0x7E. The middleware does
//     not check the value: each value a client sends gets a bucket, so key
//     by a header only behind authentication, or refuse requests without
//     one.
//   - [ContextKey](k): r.Context().Value(k), put there by the service's own
//     auth middleware (a user id): a non-empty string or []byte, an int,
//     int64 or uint64.
//   - [PatternKey](): the route pattern ServeMux matched (r.Pattern), seen
//     by a policy around the route's handler; [FuncKey](f) for any other
//     router.
//   - [CompositeKey](parts...): all of them, each prefixed by its length
//     (route and address: [CompositeKey]([PatternKey](), [AddressKey]())).
//
// A request whose key is missing or invalid is keyed by its client address
// (the default), or refused without a bucket being read: [Key.OrRefuse](400
// or 401 with its WWW-Authenticate challenge), body [BodyInvalidKey]. A
// fallback key never shares a bucket with a key value: a policy prefixes
// key values and addresses apart, and the Limiter hashes a key that is not
// the address with a per-Limiter secret seed (hash/maphash) before its gate
// sees it, so that no client can choose a value that lands on another's
// bucket (the gate's own key, lim_ip_key, is public and easy to collide).
//
// # Policies
//
// [Limiter.NewPolicy]([PolicyConfig]) returns a [Policy]: a table of
// buckets of its own ([gate.Buckets]: cap, refil and ivl in the gate's
// ticks, a [Key], a Cost function, Sets*Ways ways) that runs under the
// Limiter's in-flight gate, clock, allowlist, fields, limited status and
// hook. [Policy.Wrap] goes around a route's handler in the service's own
// router, inside [Limiter.Wrap] around the router, so the router decides
// which policies a request meets. With Go's ServeMux (Go 1.22 patterns):
//
//	mux.Handle("POST /login", login.Wrap(loginHandler)) // 5 a minute per address
//	mux.Handle("GET /api/", api.Wrap(apiHandler))       // 100 a second per API key
//	srv.Handler = l.Wrap(mux)                           // in-flight cap, bucket per address
//
// With chi (github.com/go-chi/chi/v5), the same:
//
//	r := chi.NewRouter()
//	r.Use(l.Wrap)
//	r.With(login.Wrap).Post("/login", loginHandler)
//	r.With(api.Wrap).Get("/api/*", apiHandler)
//	// a key per route: httplimit.FuncKey(func(r *http.Request) (string, bool) {
//	//	p := chi.RouteContext(r.Context()).RoutePattern(); return p, p != "" })
//
// A request meets its limits in order: the Limiter's in-flight gate (and
// per-key and per-prefix caps), the Limiter's bucket, then each policy
// wrapped around the route, outermost first. The first that rejects
// answers. Tokens already taken when a later limit rejects stay taken: a
// rejected request has paid every limit before the one that rejected it,
// and none after it; a shed, decided first, pays nothing anywhere. Nothing
// is given back, because a give-back is not atomic with the take: requests
// of the key decided in between would see the bucket without those tokens,
// and one whose bucket was refilled or evicted meanwhile would be given
// tokens it never had. TestEarlierLimitsKeepTheirTokens and
// TestLaterLimitsAreNotAsked pin both sides.
//
// [Policy.SetLimits] changes a policy's cap, refil and ivl at run time and
// keeps every bucket: a bucket refills under the new limits from the
// tokens and last tick it holds (tokens over a lower cap count as the cap),
// and each take and its header fields are decided under one set of limits.
// The table's size (Sets, Ways) is fixed: another size needs a new policy,
// whose buckets start full. The Limiter's own limits are its gate's
// (spec.md's lim_cfg), fixed for the gate's life.
//
// [PolicyConfig].Cost weighs a request (a batch, a byte count): the
// tokens it takes, at least 1. A cost over cap is an ordinary reject (spec
// LIM-12: no bucket can hold it) whose Retry-After is lim_take's retry; any
// other limited request of a policy gets the true wait, the seconds until
// its bucket holds the cost. The Limiter's own bucket costs 1 a request, as
// spec.md's gate does.
//
// All of this is API beyond spec.md: impl/gate's decisions, what
// conformance checks, are unchanged.
//
// # Rate-limit header fields
//
// [WithFields]([RateLimitFields]) writes the fields of the IETF httpapi
// draft "RateLimit header fields for HTTP". Its latest revision is
// draft-ietf-httpapi-ratelimit-headers-12 (20 November 2026); the fields
// are written as revision -10 defines them (the last whose full text was
// checked for this package: a policy's name an sf-string, q, w, r, t),
// which the working group's later edits extend by letting the name be a
// Token as well. One list item per limit a request met, the Limiter's
// first (the draft lets a List span several field lines):
//
//	RateLimit-Policy: "default";q=200;w=10, "api";q=100;w=1
//	RateLimit: "default";r=199;t=1, "api";r=99;t=1
//
// q is the cap, w the seconds an empty bucket takes to fill (rounded up, so
// that q requests every w seconds always pass), r the tokens left after this
// request, and t the seconds until the bucket holds more than r (the draft's
// "time until additional quota is made available"; the end of the refill
// step, rounded up), left out when the bucket is full. So a Retry-After on
// a limited response is never earlier than t, as the draft asks (with
// WithFields the Limiter's Limited 503 uses the true wait). The item is an
// sf-string (the draft allows a String or a Token); pk, the partition key,
// is not sent: it would echo the key (an API key) back.
//
// [XRateLimitFields] writes X-RateLimit-Limit (the cap), -Remaining (r)
// and -Reset: the seconds until the bucket is full again, rounded up (0
// when it is full), a delta, not a date. When several limits describe a
// request, the trio describes the one with the fewest tokens left.
//
// Each field is computed from the very bucket the decision read, returned
// by the take itself ([gate.Gate.AdmitBucketBytes], [gate.Buckets.Take]),
// never from a second lookup that another request could have moved, and
// under the limits that take used. What they promise, absent other
// traffic, is pinned by property tests: after r, the next r requests of
// cost 1 at that instant pass and the one after is limited
// (TestRemainingIsTrue); X-RateLimit-Reset is the first whole second at
// which the bucket is full again, and t the first at which it holds more
// than r (TestResetIsTrue). A shed reads no bucket and carries no field.
//
// # Status, allowlist, shadow, hook
//
//   - [WithLimitedStatus](429) answers a Limited request (the Limiter's or
//     a policy's) with 429 Too Many Requests instead of spec LIM-17's 503;
//     headers and body are the 503's. A shed stays 503: the server is full,
//     the client did nothing wrong. The login guard answers 429 anyway.
//   - [WithAllowlist]([Allowlist]): requests from its address prefixes, or
//     whose key is one of its keys, skip the buckets (the Limiter's and the
//     policies'; a key is matched against each limit's own key). By
//     default they still take an in-flight place (and are shed when the
//     gate is full) but skip the per-key and per-prefix caps;
//     SkipInFlight lets them skip the gate too.
//   - A [PolicyConfig].Shadow policy decides every request and reports it
//     (to the hook, Outcome.Shadow set; its fields only with ShadowFields)
//     but never rejects: a request it would limit runs and spends nothing.
//   - [WithOnDecision] calls a hook with an [Outcome] ([Result]: [Passed],
//     [Limited], [Shed], [Invalid], [Allowed]) for every decision of every
//     limit, one call per limit and request, in one place per outcome.
//
// # What the paths beyond the address cost
//
// Measured by BenchmarkMiddlewareKeys and pinned by TestKeyPathsAllocate:
// a key of a header, of a context value, of route and address, a decision
// hook, a policy and the X-RateLimit fields (values below 2^17) allocate
// nothing per request; the RateLimit field allocates one value (128 B) per
// request, and a request described by two limits with every field three
// (288 B: one RateLimit value and one copy of each list). In CPU time per
// request (BENCHMARKS.md; a shared 2-core machine, medians of 8, spread
// 20 to 30 %): 197 ns for the address, 217 a header key, 200 a context
// key, 238 route and address, 252 with a hook, 351 with one policy, 237
// with the X-RateLimit fields, 428 with the RateLimit fields.
//
// # Metrics
//
// [WithMetrics] reports to a [Metrics] every decision the [WithOnDecision]
// hook sees (the Limiter's gate under its [WithPolicyName] name, "default"
// unless named, and each [Policy]'s: [Passed], [Limited], [Shed],
// [Invalid], [Allowed], and whether the policy is a shadow), and the
// requests holding a place of the in-flight gate, +1 before the next
// handler and -1 when it returns: a gauge. [LoginConfig].Metrics gets
// every login [Alarm]'s kind. Unlike the hook it keeps the address path
// (no [Outcome] is computed there), and with an implementation that
// allocates nothing the middleware still allocates nothing (a test pins
// it). The repository's contrib module holds adapters for Prometheus and
// OpenTelemetry, in packages of their own, so that this package imports
// neither; BENCHMARKS.md gives their cost per request.
//
// # API
//
//   - [New], [Option], [ErrConfig]: a Limiter over a gate, configured by
//     [WithTrustedProxies] ([ProxyHeader]: [XForwardedFor], [Forwarded];
//     [MaxProxyHops]), [WithIPv6Prefix] ([DefaultIPv6PrefixBits]),
//     [WithClock], [WithOnReject], [WithRejectInvalid],
//     [WithMaxInFlightPerKey], [WithMaxInFlightPerPrefix] ([PrefixCap]),
//     [WithTrueRetryAfter], [WithKey], [WithFields] ([Fields]:
//     [RateLimitFields], [XRateLimitFields]), [WithPolicyName],
//     [WithLimitedStatus], [WithAllowlist] ([Allowlist]), [WithOnDecision]
//     ([Outcome], [Result]), [WithMetrics] ([Metrics]; [Results],
//     [AlarmKinds]).
//   - [Key]: [AddressKey], [HeaderKey], [ContextKey], [PatternKey],
//     [FuncKey], [CompositeKey], [Key.OrRefuse]; [MaxKeyBytes],
//     [BodyInvalidKey].
//   - [Limiter.NewPolicy], [PolicyConfig], [Policy], [Policy.Wrap],
//     [Policy.SetLimits], [Policy.Limits], [Policy.Name].
//   - [Limiter.Wrap]: the middleware; [Limiter.ClientKey]: the key of a
//     request; [InvalidKey], [Body400].
//   - [NewLoginGuard], [LoginConfig], [LoginGuard], [LoginGuard.Begin],
//     [LoginGuard.Check], [LoginGuard.WriteHeaders], [LoginGuard.Stats],
//     [LoginGuard.Throttle]; [Attempt] ([LoginVerdict]: [LoginProceed],
//     [LoginBanned], [LoginBusy], [LoginLimited], [LoginFull]),
//     [Attempt.Failed], [Attempt.Succeeded], [Attempt.Close],
//     [Attempt.WriteRefusal], [ErrSettled]; [Alarm] ([AlarmKind]:
//     [AlarmUnavailable], [AlarmKept], [AlarmPendingFull]), [LoginStats],
//     [DefaultMaxPending]; [NormalizeAccount], [MaxAccountLen],
//     [IPKeyPrefix], [AccountKeyPrefix].
//
// Everything is safe for concurrent use but an [Attempt] (one request's).
// Units: gate time in the gate's ticks (int64), throttle time in seconds
// (uint64), Retry-After in seconds. The login path allocates (keys, its
// pending entries); the middleware does not, but for the RateLimit field.
//
// Imports: the standard library, impl/gate, impl/lim and impl/throttle.
package httplimit
