#!lua
-- gate admit (spec 2.0 with one set of unbounded ways: a bucket per key, never
-- evicted): GATE-4..GATE-10, GATE-14..GATE-15 and the lease, in one atomic step.
-- KEYS[1] leases: zset, lease id -> expiry (ms of the Redis clock)
-- KEYS[2] the key's bucket: 64 hex digits tq tr lq lr (four int64, two's complement)
--   where tks = tq*refil + tr (0 <= tr < refil) and last = lq*ivl + lr (0 <= lr < ivl)
-- ARGV[1] now_q   ARGV[2] now_r   (now = now_q*ivl + now_r, divided in Go)
-- ARGV[3] cap_q   ARGV[4] cap_r   (cap = cap_q*refil + cap_r, divided in Go)
-- ARGV[5] refil - 1   ARGV[6] maxif   ARGV[7] lease id   ARGV[8] lease TTL ms (> 0)
-- ARGV[9] ms per refill step (a decimal double, only for the key's TTL)
-- ARGV[10] TTL margin ms   ARGV[11] most TTL ms
-- Every int64 argument is 16 hex digits. Returns {verdict, bucket record}: verdict
-- 'pass', 'limited' or 'shed'; the record is the key's bucket after the take ('' on shed).
-- Numbers: every value the decision uses is an integer of magnitude < 2^34 held as
-- (hi, lo) halves, so doubles are exact. Only the TTL is approximate (and rounded up).
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
local function ltqr(aqh, aql, arh, arl, bqh, bql, brh, brl)
  return lt(aqh, aql, bqh, bql) or (eq(aqh, aql, bqh, bql) and lt(arh, arl, brh, brl))
end

-- Reads and validation first: no write happens before the decision is known.
if redis.call('ZSCORE', KEYS[1], ARGV[7]) then return {'pass', ''} end -- a retried admit that passed
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('ZCOUNT', KEYS[1], '(' .. now_ms, '+inf') -- live leases
local mh, ml = dec(ARGV[6], 1)
local nh = math.floor(n / B)
if not lt(nh, n - nh * B, mh, ml) then return {'shed', ''} end -- GATE-4: lim_acq(n, maxif)
local nqh, nql = dec(ARGV[1], 1)
local nrh, nrl = dec(ARGV[2], 1)
local cqh, cql = dec(ARGV[3], 1)
local crh, crl = dec(ARGV[4], 1)
local tqh, tql, trh, trl, lqh, lql, lrh, lrl
local rec = redis.call('GET', KEYS[2])
if rec then
  if #rec ~= 64 then error('limcheck: bad bucket record') end
  tqh, tql = dec(rec, 1); trh, trl = dec(rec, 17); lqh, lql = dec(rec, 33); lrh, lrl = dec(rec, 49)
else -- GATE-10: a key no way holds takes from lim_bkt_new(cap, now)
  tqh, tql, trh, trl = cqh, cql, crh, crl
  lqh, lql, lrh, lrl = nqh, nql, nrh, nrl
end
-- LIM-10's clamp of a stored bucket above cap comes first (min(tks, cap)).
if ltqr(cqh, cql, crh, crl, tqh, tql, trh, trl) then tqh, tql, trh, trl = cqh, cql, crh, crl end
-- LIM-8/LIM-9: steps = now_q - last_q - [now_r < last_r] when now >= last, else 0.
local sh, sl = 0, 0
if not ltqr(nqh, nql, nrh, nrl, lqh, lql, lrh, lrl) then
  sh, sl = sub(nqh, nql, lqh, lql)
  if lt(nrh, nrl, lrh, lrl) then sh, sl = sub(sh, sl, 0, 1) end
  lqh, lql = add(lqh, lql, sh, sl) -- last' = (last_q + steps)*ivl + last_r
end
-- LIM-10: tks + steps*refil = (tq + steps)*refil + tr; min with cap compares (q, r) pairs.
tqh, tql = add(tqh, tql, sh, sl)
if not ltqr(tqh, tql, trh, trl, cqh, cql, crh, crl) then
  -- GATE-14/GATE-15: full at now, so it is lim_bkt_new(cap, now): born at now
  tqh, tql, trh, trl = cqh, cql, crh, crl
  lqh, lql, lrh, lrl = nqh, nql, nrh, nrl
end
local verdict = 'limited'
if tqh ~= 0 or tql ~= 0 or trh ~= 0 or trl ~= 0 then -- LIM-11: tks' >= 1
  verdict = 'pass'
  if trh == 0 and trl == 0 then
    tqh, tql = sub(tqh, tql, 0, 1)
    trh, trl = dec(ARGV[5], 1)
  else
    trh, trl = sub(trh, trl, 0, 1)
  end
end
local out = enc(tqh, tql) .. enc(trh, trl) .. enc(lqh, lql) .. enc(lrh, lrl)
-- The key's TTL: at least the real time until its bucket is full again (then it
-- carries no information, GATE-14), from steps <= (cap_q - tq) + 1 plus, after a
-- step back, (last_q - now_q) + 1; doubles here, rounded up, plus the margin.
local steps = (cqh - tqh) * B + (cql - tql) + 2
local ahead = (lqh - nqh) * B + (lql - nql)
if ahead > 0 then steps = steps + ahead + 1 end
local most = tonumber(ARGV[11])
local ttl = steps * tonumber(ARGV[9])
ttl = math.ceil(ttl + ttl * 1e-9) + tonumber(ARGV[10])
if not (ttl < most) then ttl = most end -- also catches inf and nan
-- Writes, all after the decision.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms) -- an expired lease is a release
redis.call('SET', KEYS[2], out, 'PX', string.format('%d', ttl)) -- GATE-6
if verdict == 'pass' then -- GATE-7: the place is kept, as a lease
  local lttl = tonumber(ARGV[8])
  redis.call('ZADD', KEYS[1], now_ms + lttl, ARGV[7])
  if redis.call('PTTL', KEYS[1]) < lttl + 1000 then redis.call('PEXPIRE', KEYS[1], lttl + 1000) end
end
return {verdict, out}
