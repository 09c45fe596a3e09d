#!lua
-- gate admit, spec 3.0: GATE-4..GATE-10 and GATE-14..GATE-17 and GATE-19 over one set
-- of the set-associative table (the node computed the set, GATE-13, GATE-18: the seed
-- never reaches Redis), and the pass's lease (DIST-3), in one atomic step.
-- KEYS[1] leases: zset, lease id -> expiry (ms of the lease clock)
-- KEYS[2] the request's set: hash, way (decimal) -> key (8 bytes) .. bucket (32 bytes: tq tr
--   lq lr, four big-endian int64), where tks = tq*refil + tr (0 <= tr < refil) and last =
--   lq*ivl + lr (0 <= lr < ivl); and 'b' -> the set's eviction budget (GATE-19), a bucket
--   (32 bytes) in the same encoding
-- ARGV[1] now_q now_r (16 bytes: now = now_q*ivl + now_r, divided in Go)
-- ARGV[2] the key (8 bytes)   ARGV[3] lease id
-- ARGV[4] '1' when an earlier attempt of this admit may have run (look for its lease)
-- ARGV[5] '1' to drop expired leases whatever the count
-- ARGV[6] the gate's constants: cap_q cap_r refil-1 maxif ways (five big-endian int64, cap
--   = cap_q*refil + cap_r, divided in Go), then four big-endian doubles: lease TTL ms, ms
--   per refill step, TTL margin ms, most TTL ms
-- ARGV[7] the lease clock's now in ms (decimal), or '' for the Redis clock (TIME)
-- Returns {verdict, way, bucket record, deficit}: verdict 'pass', 'limited' or 'shed'; way
-- -1 and bucket '' on a shed, a replayed pass or a refused eviction; deficit '' but on a
-- refused eviction (GATE-19), where it is cost - tks' of the budget's take as (q, r), 16
-- bytes, and Go computes the retry.
-- Numbers: struct.unpack reads each int64 as a signed high and an unsigned low 32-bit
-- half, both exact in doubles, and every value a decision uses stays an integer held as
-- (hi, lo) halves of magnitude < 2^34; way indexes are below the set's entry count + 1.
-- Only the TTLs are approximate (and rounded up). Strings are never compared with <.
local B = 4294967296
local unpack, pack = struct.unpack, struct.pack
local n1, n2, n3, n4 = unpack('>i4I4i4I4', ARGV[1])
local c1, c2, c3, c4, f1, f2, m1, m2, w1, w2, lttl, mstep, margin, most =
  unpack('>i4I4i4I4i4I4i4I4i4I4dddd', ARGV[6])
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
-- (q, r) pairs compare lexicographically, q first: (a1, a2) is q's halves, (a3, a4) r's.
local function ltqr(a1, a2, a3, a4, b1, b2, b3, b4)
  if a1 ~= b1 then return a1 < b1 end
  if a2 ~= b2 then return a2 < b2 end
  if a3 ~= b3 then return a3 < b3 end
  return a4 < b4
end
-- enc packs four int64 as (hi, lo) halves: a hi past int32 is a logic error, never data.
local function enc(a1, a2, a3, a4, a5, a6, a7, a8)
  if a1 < -2147483648 or a1 > 2147483647 or a3 < -2147483648 or a3 > 2147483647 or
    a5 < -2147483648 or a5 > 2147483647 or a7 < -2147483648 or a7 > 2147483647 then
    error('limcheck: int64 out of range')
  end
  return pack('>i4I4i4I4i4I4i4I4', a1, a2, a3, a4, a5, a6, a7, a8)
end

-- Reads and validation first: no write happens before the decision is known.
if ARGV[4] == '1' and redis.call('ZSCORE', KEYS[1], ARGV[3]) then return {'pass', -1, '', ''} end -- a replayed admit that passed
local now_ms = tonumber(ARGV[7])
local function clock() -- the lease clock, read once and only when needed
  if not now_ms then
    local t = redis.call('TIME')
    now_ms = t[1] * 1000 + math.floor(t[2] / 1000)
  end
  return now_ms
end
local card = redis.call('ZCARD', KEYS[1])
local n, sweep = card, ARGV[5] == '1'
local nh = math.floor(n / B)
if not lt(nh, n - nh * B, m1, m2) then -- past maxif with expired leases in: count the live ones
  n = redis.call('ZCOUNT', KEYS[1], '(' .. clock(), '+inf') -- live leases
  nh, sweep = math.floor(n / B), true
end
if not lt(nh, n - nh * B, m1, m2) then return {'shed', -1, '', ''} end -- GATE-4: lim_acq(n, maxif)
local rh, rl = add(f1, f2, 0, 1) -- refil
-- subqr: a - b of two (q, r) pairs, the remainder brought back into [0, refil).
local function subqr(a1, a2, a3, a4, b1, b2, b3, b4)
  local q1, q2 = sub(a1, a2, b1, b2)
  local r1, r2 = sub(a3, a4, b3, b4)
  if r1 < 0 then
    q1, q2 = sub(q1, q2, 0, 1)
    r1, r2 = add(r1, r2, rh, rl)
  end
  return q1, q2, r1, r2
end
-- refill: LIM-8..LIM-10 at now of tokens (t1 t2, t3 t4) and last (l1 l2, l3 l4); returns
-- the refilled tokens, the new last's quotient (its remainder never changes) and whether
-- the bucket is full at now (GATE-14).
local function refill(t1, t2, t3, t4, l1, l2, l3, l4)
  if ltqr(c1, c2, c3, c4, t1, t2, t3, t4) then t1, t2, t3, t4 = c1, c2, c3, c4 end -- min(tks, cap) first
  if not ltqr(n1, n2, n3, n4, l1, l2, l3, l4) then -- steps = now_q - last_q - [now_r < last_r] when now >= last
    local sh, sl = sub(n1, n2, l1, l2)
    if lt(n3, n4, l3, l4) then sh, sl = sub(sh, sl, 0, 1) end
    l1, l2 = add(l1, l2, sh, sl) -- last' = (last_q + steps)*ivl + last_r
    t1, t2 = add(t1, t2, sh, sl) -- tks + steps*refil, in (q, r)
    if ltqr(c1, c2, c3, c4, t1, t2, t3, t4) then t1, t2, t3, t4 = c1, c2, c3, c4 end
  end
  return t1, t2, t3, t4, l1, l2, not ltqr(t1, t2, t3, t4, c1, c2, c3, c4)
end
local entries = redis.call('HGETALL', KEYS[2])
local key = ARGV[2]
-- One pass over the set: the key's way (GATE-15 (a)), the lowest full way (GATE-15 (b)),
-- the way whose refilled bucket holds the most tokens (GATE-16) and the budget.
local way, old, full_way, most_way -- old: a full way that held the key
local t1, t2, t3, t4, l1, l2, l3, l4 -- the key's bucket, refilled at now
local mt1, mt2, mt3, mt4 -- the most tokens
local budget, nways = nil, 0
for i = 1, #entries, 2 do
  local v = entries[i + 1]
  if entries[i] == 'b' then
    if #v ~= 32 then error('limcheck: bad budget record') end
    budget = v
  else
    local w = tonumber(entries[i])
    if w == nil or #v ~= 40 then error('limcheck: bad way') end
    nways = nways + 1
    local k, a1, a2, a3, a4, a5, a6, a7, a8 = unpack('>c8i4I4i4I4i4I4i4I4', v)
    local r1, r2, r3, r4, r5, r6, full = refill(a1, a2, a3, a4, a5, a6, a7, a8)
    if full then
      if full_way == nil or w < full_way then full_way = w end
      if k == key then old = w end
    elseif k == key then
      way, t1, t2, t3, t4, l1, l2, l3, l4 = w, r1, r2, r3, r4, r5, r6, a7, a8
    end
    if most_way == nil or ltqr(mt1, mt2, mt3, mt4, r1, r2, r3, r4) or
      (not ltqr(r1, r2, r3, r4, mt1, mt2, mt3, mt4) and w < most_way) then
      mt1, mt2, mt3, mt4, most_way = r1, r2, r3, r4, w
    end
  end
end
local paid, d1, d2, d3, d4 -- the budget after an eviction's take; cost - tks' on a refusal
local p1, p2, p3, p4, p5, p6, p7, p8
if way == nil then -- GATE-15 (b): else the lowest way that is empty or full at now
  way = full_way
  local empty = 0
  if nways > 0 then
    local used = {}
    for i = 1, #entries, 2 do
      if entries[i] ~= 'b' then used[tonumber(entries[i])] = true end
    end
    while used[empty] do empty = empty + 1 end
  end
  if lt(0, empty, w1, w2) and (way == nil or empty < way) then way = empty end
  if way == nil then -- GATE-16: evict the way whose refilled bucket holds the most tokens
    way = most_way
    -- GATE-19: the eviction costs cap - tks' of the victim (>= 1: it is not full), taken
    -- from the set's budget, born full at now where absent or full at now.
    local k1, k2, k3, k4 = subqr(c1, c2, c3, c4, mt1, mt2, mt3, mt4)
    p1, p2, p3, p4, p5, p6, p7, p8 = c1, c2, c3, c4, n1, n2, n3, n4
    if budget then
      local a1, a2, a3, a4, a5, a6, a7, a8 = unpack('>i4I4i4I4i4I4i4I4', budget)
      local r1, r2, r3, r4, r5, r6, full = refill(a1, a2, a3, a4, a5, a6, a7, a8)
      if not full then p1, p2, p3, p4, p5, p6, p7, p8 = r1, r2, r3, r4, r5, r6, a7, a8 end
    end
    if ltqr(p1, p2, p3, p4, k1, k2, k3, k4) then -- LIM-12: refused, the refill kept
      d1, d2, d3, d4 = subqr(k1, k2, k3, k4, p1, p2, p3, p4)
    else -- LIM-11
      p1, p2, p3, p4 = subqr(p1, p2, p3, p4, k1, k2, k3, k4)
    end
    paid = true
  end
  t1, t2, t3, t4, l1, l2, l3, l4 = c1, c2, c3, c4, n1, n2, n3, n4 -- GATE-10: lim_bkt_new(cap, now)
end
-- GATE-5, LIM-11: take one token (the refill is done: the bucket is refilled at now).
local verdict = 'limited'
if t1 ~= 0 or t2 ~= 0 or t3 ~= 0 or t4 ~= 0 then
  verdict = 'pass'
  if t3 == 0 and t4 == 0 then
    t1, t2 = sub(t1, t2, 0, 1)
    t3, t4 = f1, f2
  else
    t3, t4 = sub(t3, t4, 0, 1)
  end
end
-- The set's TTL (DIST-6): at least the real time until each bucket written here (the
-- way's, the budget's) is full again (it then carries no information, GATE-14; an absent
-- budget is born full, GATE-19), from steps <= (cap_q - tq) + 1 plus, after a step back,
-- (last_q - now_q) + 1; doubles, rounded up, plus the margin. The set's TTL only grows, so
-- it covers every way and budget in it.
local function steps(q1, q2, lq1, lq2)
  local s = (c1 - q1) * B + (c2 - q2) + 2
  local ahead = (lq1 - n1) * B + (lq2 - n2)
  if ahead > 0 then s = s + ahead + 1 end
  return s
end
local n_steps = 0
if paid then n_steps = steps(p1, p2, p5, p6) end
if not d1 then
  local s = steps(t1, t2, l1, l2)
  if s > n_steps then n_steps = s end
end
local ttl = n_steps * mstep
ttl = math.ceil(ttl + ttl * 1e-9) + margin
if not (ttl < most) then ttl = most end -- also catches inf and nan
-- Writes, all after the decision.
local removed = 0
if sweep then removed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', clock()) end -- an expired lease is a release
if paid then redis.call('HSET', KEYS[2], 'b', enc(p1, p2, p3, p4, p5, p6, p7, p8)) end -- GATE-19: on both outcomes
local rec = ''
if not d1 then -- GATE-19: a refused eviction writes no way
  rec = enc(t1, t2, t3, t4, l1, l2, l3, l4)
  if old and old ~= way then redis.call('HDEL', KEYS[2], old) end -- GATE-15 (b): its old way is emptied
  redis.call('HSET', KEYS[2], way, key .. rec) -- GATE-6: the way keeps the take's bucket
end
if #entries > 0 then -- the set's TTL only grows
  redis.call('PEXPIRE', KEYS[2], ttl, 'GT')
else
  redis.call('PEXPIRE', KEYS[2], ttl)
end
if d1 then -- GATE-19: limited, no way holds the key, the retry from the budget's take
  return {'limited', -1, '', pack('>i4I4i4I4', d1, d2, d3, d4)}
end
if verdict == 'pass' then -- GATE-7: the place is kept, as a lease
  redis.call('ZADD', KEYS[1], clock() + lttl, ARGV[3])
  if card > removed then -- the lease set outlives its last lease
    redis.call('PEXPIRE', KEYS[1], lttl + 1000, 'GT')
  else
    redis.call('PEXPIRE', KEYS[1], lttl + 1000)
  end
end
return {verdict, way, rec, ''}
