#!lua
-- gate admit, spec 3.0: GATE-4..GATE-10 and GATE-14..GATE-17 and GATE-19 over one set
-- of the set-associative table (the node computed the set, GATE-13, GATE-18: the seed
-- never reaches Redis), and the pass's lease (DIST-3), in one atomic step.
-- KEYS[1] leases: zset, lease id -> expiry (ms of the lease clock)
-- KEYS[2] the request's set: hash, way (decimal) -> key (8 bytes) .. bucket (32 bytes: tq tr
--   lq lr, four big-endian int64) .. the set's expiry as this admit left it (a big-endian
--   double, ms of the Redis clock; 0: unknown), where tks = tq*refil + tr (0 <= tr < refil) and last =
--   lq*ivl + lr (0 <= lr < ivl); and 'b' -> the set's eviction budget (GATE-19), a bucket
--   (32 bytes) in the same encoding
-- ARGV[1] now_q now_r (16 bytes: now = now_q*ivl + now_r, divided in Go)
-- ARGV[2] the key (8 bytes)   ARGV[3] lease id
-- ARGV[4] '1' when an earlier attempt of this admit may have run (look for its lease)
-- ARGV[5] '1' to drop expired leases whatever the count, and to give the lease set its
--   TTL again (a node asks every so often: between, a pass leaves the TTL as it is)
-- ARGV[6] the gate's constants: cap_q cap_r refil-1 maxif ways (five big-endian int64, cap
--   = cap_q*refil + cap_r, divided in Go), then four big-endian doubles: lease TTL ms, ms
--   per refill step, TTL margin ms, most TTL ms, then the lease set's TTL ms (a double)
-- ARGV[7] the lease clock's now in ms (decimal), or '' for the Redis clock (TIME)
-- Returns {verdict, way, bucket record, deficit}: verdict 'pass', 'limited' or 'shed'; way
-- -1 and bucket '' on a shed, a replayed pass or a refused eviction; deficit '' but on a
-- refused eviction (GATE-19), where it is cost - tks' of the budget's take as (q, r), 16
-- bytes, and Go computes the retry.
-- Numbers as in lua/arith.lua, joined in front of this script (refill, charge, take,
-- lifetime): struct.unpack reads each int64 as a signed high and an unsigned low 32-bit
-- half, both exact in doubles; way indexes are below the set's entry count + 1. Strings
-- are never compared with <.
-- Cost: a closure costs about 0.1 us to make and a call as much, as many as a Redis
-- command's own work, and each local it captures about 0.03 us more: the scan is the one
-- closure here, beside lua/arith.lua's four.
local B = 4294967296
local unpack, pack = struct.unpack, struct.pack
local n1, n2, n3, n4 = unpack('>i4I4i4I4', ARGV[1])
local c1, c2, c3, c4, f1, f2, m1, m2, w1, w2, lttl, mstep, margin, most, lset =
  unpack('>i4I4i4I4i4I4i4I4i4I4ddddd', ARGV[6])

-- Reads and validation first: no write happens before the decision is known.
if ARGV[4] == '1' and redis.call('ZSCORE', KEYS[1], ARGV[3]) then return {'pass', -1, '', ''} end -- a replayed admit that passed
local now_ms = tonumber(ARGV[7]) -- the lease clock, read once and only when needed
local card = redis.call('ZCARD', KEYS[1])
local n, sweep = card, ARGV[5] == '1'
local nh = math.floor(n / B)
if not (nh < m1 or (nh == m1 and n - nh * B < m2)) then -- past maxif with expired leases in: count the live ones
  if not now_ms then local t = redis.call('TIME'); now_ms = t[1] * 1000 + math.floor(t[2] / 1000) end
  n = redis.call('ZCOUNT', KEYS[1], '(' .. now_ms, '+inf') -- live leases
  nh, sweep = math.floor(n / B), true
end
if not (nh < m1 or (nh == m1 and n - nh * B < m2)) then return {'shed', -1, '', ''} end -- GATE-4: lim_acq(n, maxif)
local key = ARGV[2]
-- One pass over the set's ways: the key's way (GATE-15 (a)), the lowest full way (GATE-15
-- (b)) and the way whose refilled bucket holds the most tokens (GATE-16).
local way, old, full_way, most_way -- old: a full way that held the key
local t1, t2, t3, t4, l1, l2, l3, l4 -- the key's bucket, refilled at now
local mt1, mt2, mt3, mt4 -- the most tokens
local nways, expiry = 0, 0 -- expiry: the latest the ways record (the set lives at least as long)
local function scan(w, v) -- way w holds record v
  if w == nil or #v ~= 48 then error('limcheck: bad way') end
  nways = nways + 1
  local k, a1, a2, a3, a4, a5, a6, a7, a8, e = unpack('>c8i4I4i4I4i4I4i4I4d', v)
  if e > expiry then expiry = e end
  local r1, r2, r3, r4, r5, r6, full = refill(a1, a2, a3, a4, a5, a6, a7, a8, n1, n2, n3, n4, c1, c2, c3, c4)
  if full then
    if full_way == nil or w < full_way then full_way = w end
    if k == key then old = w end
  elseif k == key then
    way, t1, t2, t3, t4, l1, l2, l3, l4 = w, r1, r2, r3, r4, r5, r6, a7, a8
  end
  if most_way == nil or mt1 < r1 or (mt1 == r1 and (mt2 < r2 or (mt2 == r2 and (mt3 < r3 or (mt3 == r3 and (mt4 < r4 or (mt4 == r4 and w < most_way))))))) then
    mt1, mt2, mt3, mt4, most_way = r1, r2, r3, r4, w
  end
end
-- One way (the production layout): the set is way 0 and the budget, read only when way 0
-- must be evicted (a budget is written only with way 0). Else the whole set.
local one = w1 == 0 and w2 == 1
local entries, budget, exists
if one then
  local v = redis.call('HGET', KEYS[2], 0)
  if v then scan(0, v) end
  exists = v
else
  entries = redis.call('HGETALL', KEYS[2])
  exists = #entries > 0
  for i = 1, #entries, 2 do
    if entries[i] == 'b' then budget = entries[i + 1] else scan(tonumber(entries[i]), entries[i + 1]) end
  end
end
local paid, d1, d2, d3, d4 -- the budget after an eviction's take; cost - tks' on a refusal
local p1, p2, p3, p4, p5, p6, p7, p8
if way == nil then -- GATE-15 (b): else the lowest way that is empty or full at now
  way = full_way
  local empty = 0
  if one then
    empty = nways
  elseif nways > 0 then
    local used = {}
    for i = 1, #entries, 2 do
      if entries[i] ~= 'b' then used[tonumber(entries[i])] = true end
    end
    while used[empty] do empty = empty + 1 end
  end
  if (0 < w1 or (0 == w1 and empty < w2)) and (way == nil or empty < way) then way = empty end
  if way == nil then -- GATE-16: evict the way whose refilled bucket holds the most tokens
    way = most_way
    if one then budget = redis.call('HGET', KEYS[2], 'b') end
    if budget and #budget ~= 32 then error('limcheck: bad budget record') end
    p1, p2, p3, p4, p5, p6, p7, p8, d1, d2, d3, d4 = charge(mt1, mt2, mt3, mt4, budget, n1, n2, n3, n4, c1, c2, c3, c4, f1, f2) -- GATE-19
    paid = true
  end
  t1, t2, t3, t4, l1, l2, l3, l4 = c1, c2, c3, c4, n1, n2, n3, n4 -- GATE-10: lim_bkt_new(cap, now)
end
-- GATE-5, LIM-11: take one token (the refill is done: the bucket is refilled at now).
local verdict
verdict, t1, t2, t3, t4 = take(t1, t2, t3, t4, f1, f2)
-- The set's TTL (DIST-6): until each bucket written here (the way's, the budget's) is full
-- again, plus the margin. The set's TTL only grows, so it covers every way and budget in it.
local ttl = lifetime(p1, p2, p5, p6, d1, t1, t2, l1, l2, n1, n2, c1, c2, mstep, margin, most)
-- The set's PEXPIRE is skipped when the expiry its way recorded already covers ttl: in the
-- one-way layout (the record is the set's; a budget write always sets the TTL) and on the
-- Redis clock (the one the expiry runs on), which a pass reads anyway. A PEXPIRE sets a
-- margin more than ttl, so a busy key skips it for about a margin.
if verdict == 'pass' and not now_ms then local t = redis.call('TIME'); now_ms = t[1] * 1000 + math.floor(t[2] / 1000) end
local on_redis_clock = ARGV[7] == ''
local renew = not (one and exists and not paid and on_redis_clock and now_ms and expiry >= now_ms + ttl)
if renew then
  ttl = ttl + margin
  if ttl > most then ttl = most end
  if now_ms and on_redis_clock and now_ms + ttl > expiry then expiry = now_ms + ttl end
end
-- Writes, all after the decision. A stored high half past int32 would be a logic error,
-- never data: struct.pack would wrap it, so it is refused first.
local removed = 0
if sweep then
  if not now_ms then local t = redis.call('TIME'); now_ms = t[1] * 1000 + math.floor(t[2] / 1000) end
  removed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms) -- an expired lease is a release
end
if paid then -- GATE-19: on both outcomes
  if p1 < -2147483648 or p1 > 2147483647 or p5 < -2147483648 or p5 > 2147483647 then error('limcheck: int64 out of range') end
  redis.call('HSET', KEYS[2], 'b', pack('>i4I4i4I4i4I4i4I4', p1, p2, p3, p4, p5, p6, p7, p8))
end
local rec = ''
if not d1 then -- GATE-19: a refused eviction writes no way
  if t1 < -2147483648 or t1 > 2147483647 or l1 < -2147483648 or l1 > 2147483647 then error('limcheck: int64 out of range') end
  rec = pack('>i4I4i4I4i4I4i4I4', t1, t2, t3, t4, l1, l2, l3, l4)
  if old and old ~= way then redis.call('HDEL', KEYS[2], old) end -- GATE-15 (b): its old way is emptied
  redis.call('HSET', KEYS[2], way, key .. rec .. pack('>d', expiry)) -- GATE-6: the way keeps the take's bucket
end
if not renew then -- the recorded expiry covers ttl
elseif exists then -- the set's TTL only grows
  redis.call('PEXPIRE', KEYS[2], ttl, 'GT')
else
  redis.call('PEXPIRE', KEYS[2], ttl)
end
if d1 then -- GATE-19: limited, no way holds the key, the retry from the budget's take
  return {'limited', -1, '', pack('>i4I4i4I4', d1, d2, d3, d4)}
end
if verdict == 'pass' then -- GATE-7: the place is kept, as a lease
  redis.call('ZADD', KEYS[1], now_ms + lttl, ARGV[3])
  if card == removed then -- a new lease set
    redis.call('PEXPIRE', KEYS[1], lset)
  elseif sweep then -- the lease set outlives its last lease
    redis.call('PEXPIRE', KEYS[1], lset, 'GT')
  end
end
return {verdict, way, rec, ''}
