#!lua
-- gate admit, spec 3.0: GATE-4..GATE-10 and GATE-14..GATE-17 and GATE-19 over one set
-- of the set-associative table (the node computed the set, GATE-13, GATE-18: the seed
-- never reaches Redis), and the pass's lease (DIST-3), in one atomic step.
-- KEYS[1] leases: zset, lease id -> expiry (ms of the Redis clock)
-- KEYS[2] the request's set: hash, way (16 hex digits) -> key (16 hex) .. bucket (64 hex:
--   tq tr lq lr, four int64 in two's complement), where tks = tq*refil + tr
--   (0 <= tr < refil) and last = lq*ivl + lr (0 <= lr < ivl); and 'budget' -> the set's
--   eviction budget (GATE-19), a bucket (64 hex) in the same encoding
-- ARGV[1] now_q   ARGV[2] now_r   (now = now_q*ivl + now_r, divided in Go)
-- ARGV[3] cap_q   ARGV[4] cap_r   (cap = cap_q*refil + cap_r, divided in Go)
-- ARGV[5] refil - 1   ARGV[6] maxif   ARGV[7] lease id   ARGV[8] lease TTL ms (> 0)
-- ARGV[9] ms per refill step (a decimal double, only for the set's TTL)
-- ARGV[10] TTL margin ms   ARGV[11] most TTL ms   ARGV[12] the key, 16 hex digits
-- ARGV[13] ways, 16 hex digits
-- Every int64 argument is 16 hex digits. Returns {verdict, way (16 hex), bucket record,
-- deficit}: verdict 'pass', 'limited' or 'shed'; way and bucket '' on a shed, a replayed
-- pass or a refused eviction; deficit '' but on a refused eviction (GATE-19), where it is
-- cost - tks' of the budget's take as (q, r), 32 hex digits, and Go computes the retry.
-- Numbers: every value a decision uses is an integer held as (hi, lo) halves of
-- magnitude < 2^34, exact in doubles; way indexes are below the set's entry count + 1.
-- Only the TTL is approximate (and rounded up). Strings are never compared with <.
local B = 4294967296
local function dec(h, i)
  local hi = tonumber(string.sub(h, i, i + 7), 16)
  local lo = tonumber(string.sub(h, i + 8, i + 15), 16)
  if hi == nil or lo == nil then error('limcheck: bad int64 encoding') end
  if hi >= 2147483648 then hi = hi - B end
  return hi, lo
end
local function enc(hi, lo)
  if hi < -2147483648 or hi > 2147483647 then error('limcheck: int64 out of range') end
  if hi < 0 then hi = hi + B end
  return string.format('%08x%08x', hi, lo)
end
local function add(ah, al, bh, bl)
  local l = al + bl
  if l >= B then return ah + bh + 1, l - B end
  return ah + bh, l
end
local function sub(ah, al, bh, bl)
  local l = al - bl
  if l < 0 then return ah - bh - 1, l + B end
  return ah - bh, l
end
local function lt(ah, al, bh, bl) return ah < bh or (ah == bh and al < bl) end
local function eq(ah, al, bh, bl) return ah == bh and al == bl end
-- (q, r) pairs compare lexicographically: q first.
local function ltqr(a, b)
  return lt(a[1], a[2], b[1], b[2]) or (eq(a[1], a[2], b[1], b[2]) and lt(a[3], a[4], b[3], b[4]))
end

-- Reads and validation first: no write happens before the decision is known.
if redis.call('ZSCORE', KEYS[1], ARGV[7]) then return {'pass', '', '', ''} end -- a replayed admit that passed
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('ZCOUNT', KEYS[1], '(' .. now_ms, '+inf') -- live leases
local mh, ml = dec(ARGV[6], 1)
local nh = math.floor(n / B)
if not lt(nh, n - nh * B, mh, ml) then return {'shed', '', '', ''} end -- GATE-4: lim_acq(n, maxif)
local nq1, nq2 = dec(ARGV[1], 1)
local nr1, nr2 = dec(ARGV[2], 1)
local now = {nq1, nq2, nr1, nr2}
local c1, c2 = dec(ARGV[3], 1)
local c3, c4 = dec(ARGV[4], 1)
local cap = {c1, c2, c3, c4}
local rh, rl = dec(ARGV[5], 1)
rh, rl = add(rh, rl, 0, 1) -- refil
-- subqr(a, b): a - b of two (q, r) pairs, the remainder brought back into [0, refil).
local function subqr(a, b)
  local q1, q2 = sub(a[1], a[2], b[1], b[2])
  local r1, r2 = sub(a[3], a[4], b[3], b[4])
  if r1 < 0 then
    q1, q2 = sub(q1, q2, 0, 1)
    r1, r2 = add(r1, r2, rh, rl)
  end
  return {q1, q2, r1, r2}
end
-- refill(b): LIM-8..LIM-10 at now; returns the refilled tokens (q, r), the new last
-- (q, r) and whether the bucket is full at now (GATE-14).
local function refill(b)
  local tks = {b[1], b[2], b[3], b[4]}
  local last = {b[5], b[6], b[7], b[8]}
  if ltqr(cap, tks) then tks = {cap[1], cap[2], cap[3], cap[4]} end -- min(tks, cap) first
  if not ltqr(now, last) then -- steps = now_q - last_q - [now_r < last_r] when now >= last
    local sh, sl = sub(now[1], now[2], last[1], last[2])
    if lt(now[3], now[4], last[3], last[4]) then sh, sl = sub(sh, sl, 0, 1) end
    last[1], last[2] = add(last[1], last[2], sh, sl) -- last' = (last_q + steps)*ivl + last_r
    tks[1], tks[2] = add(tks[1], tks[2], sh, sl)     -- tks + steps*refil, in (q, r)
    if ltqr(cap, tks) then tks = {cap[1], cap[2], cap[3], cap[4]} end
  end
  return tks, last, not ltqr(tks, cap)
end
local function decode(v, at) -- the bucket of 64 hex digits at v[at]
  if #v ~= at + 63 then error('limcheck: bad bucket record') end
  local b = {}
  for i = 0, 3 do b[2 * i + 1], b[2 * i + 2] = dec(v, at + 16 * i) end
  return b
end
local function encode(b)
  return enc(b[1], b[2]) .. enc(b[3], b[4]) .. enc(b[5], b[6]) .. enc(b[7], b[8])
end
local entries = redis.call('HGETALL', KEYS[2])
local ways = {} -- parsed: {way number, field, key hex, bucket}
local budget = nil -- the set's stored budget (GATE-19), nil when absent
for i = 1, #entries, 2 do
  if entries[i] == 'budget' then
    budget = decode(entries[i + 1], 1)
  else
    local w = tonumber(entries[i], 16)
    if w == nil or #entries[i] ~= 16 then error('limcheck: bad way field') end
    ways[#ways + 1] = {w, entries[i], string.sub(entries[i + 1], 1, 16), decode(entries[i + 1], 17)}
  end
end
local born = {cap[1], cap[2], cap[3], cap[4], now[1], now[2], now[3], now[4]}
local way, bkt, old = nil, nil, nil -- old: the field of a full way that held the key
local paid, deficit = nil, nil -- the budget after an eviction's take; cost - tks' on a refusal
for _, e in ipairs(ways) do -- GATE-15 (a): the way that holds the key, if not full at now
  if e[3] == ARGV[12] then
    local tks, last, full = refill(e[4])
    if full then
      old = e[2]
    else
      way, bkt = e[1], {tks[1], tks[2], tks[3], tks[4], last[1], last[2], last[3], last[4]}
    end
  end
end
if way == nil then -- GATE-15 (b): else the lowest way that is empty or full at now
  local used = {}
  for _, e in ipairs(ways) do
    used[e[1]] = true
    local _, _, full = refill(e[4])
    if full and (way == nil or e[1] < way) then way = e[1] end
  end
  local empty = 0
  while used[empty] do empty = empty + 1 end
  local wh, wl = dec(ARGV[13], 1)
  if lt(0, empty, wh, wl) and (way == nil or empty < way) then way = empty end
  if way == nil then -- GATE-16: evict the way whose refilled bucket holds the most tokens
    local most = nil
    for _, e in ipairs(ways) do
      local tks = refill(e[4])
      if most == nil or ltqr(most, tks) or (not ltqr(tks, most) and e[1] < way) then
        most, way = tks, e[1]
      end
    end
    -- GATE-19: the eviction costs cap - tks' of the victim (>= 1: it is not full), taken
    -- from the set's budget, born full at now where absent or full at now.
    local cost = subqr(cap, most)
    local btks, blast = {cap[1], cap[2], cap[3], cap[4]}, {now[1], now[2], now[3], now[4]}
    if budget then
      local tks, last, full = refill(budget)
      if not full then btks, blast = tks, last end
    end
    if ltqr(btks, cost) then -- LIM-12: refused, the refill kept
      deficit = subqr(cost, btks)
    else -- LIM-11
      btks = subqr(btks, cost)
    end
    paid = {btks[1], btks[2], btks[3], btks[4], blast[1], blast[2], blast[3], blast[4]}
  end
  bkt = born -- GATE-10: the key takes from lim_bkt_new(cap, now)
end
-- GATE-5, LIM-11: take one token (the refill is done: bkt is refilled at now).
local verdict = 'limited'
if bkt[1] ~= 0 or bkt[2] ~= 0 or bkt[3] ~= 0 or bkt[4] ~= 0 then
  verdict = 'pass'
  if bkt[3] == 0 and bkt[4] == 0 then
    bkt[1], bkt[2] = sub(bkt[1], bkt[2], 0, 1)
    bkt[3], bkt[4] = dec(ARGV[5], 1)
  else
    bkt[3], bkt[4] = sub(bkt[3], bkt[4], 0, 1)
  end
end
-- The set's TTL (DIST-6): at least the real time until each bucket written here (the
-- way's, the budget's) is full again (it then carries no information, GATE-14; an absent
-- budget is born full, GATE-19), from steps <= (cap_q - tq) + 1 plus, after a step back,
-- (last_q - now_q) + 1; doubles, rounded up, plus the margin. The set's TTL only grows, so
-- it covers every way and budget in it.
local function steps(b)
  local s = (cap[1] - b[1]) * B + (cap[2] - b[2]) + 2
  local ahead = (b[5] - now[1]) * B + (b[6] - now[2])
  if ahead > 0 then s = s + ahead + 1 end
  return s
end
local n_steps = 0
if paid then n_steps = steps(paid) end
if not deficit and steps(bkt) > n_steps then n_steps = steps(bkt) end
local most = tonumber(ARGV[11])
local ttl = n_steps * tonumber(ARGV[9])
ttl = math.ceil(ttl + ttl * 1e-9) + tonumber(ARGV[10])
if not (ttl < most) then ttl = most end -- also catches inf and nan
-- Writes, all after the decision.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms) -- an expired lease is a release
if paid then redis.call('HSET', KEYS[2], 'budget', encode(paid)) end -- GATE-19: on both outcomes
local field, rec = '', ''
if not deficit then -- GATE-19: a refused eviction writes no way
  rec, field = encode(bkt), string.format('%016x', way)
  if old and old ~= field then redis.call('HDEL', KEYS[2], old) end -- GATE-15 (b): its old way is emptied
  redis.call('HSET', KEYS[2], field, ARGV[12] .. rec) -- GATE-6: the way keeps the take's bucket
end
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], string.format('%d', ttl)) end
if deficit then -- GATE-19: limited, no way holds the key, the retry from the budget's take
  return {'limited', '', '', enc(deficit[1], deficit[2]) .. enc(deficit[3], deficit[4])}
end
if verdict == 'pass' then -- GATE-7: the place is kept, as a lease
  local lttl = tonumber(ARGV[8])
  redis.call('ZADD', KEYS[1], now_ms + lttl, ARGV[7])
  if redis.call('PTTL', KEYS[1]) < lttl + 1000 then redis.call('PEXPIRE', KEYS[1], lttl + 1000) end
end
return {verdict, field, rec, ''}
