#!lua
-- gate admit in the Spread layout, spec 3.1: GATE-5, GATE-6, GATE-8..GATE-10, GATE-14..GATE-17
-- and GATE-19 over one set of the set-associative table (the node computed the set, GATE-13,
-- GATE-18: the seed never reaches Redis), atomically in the set's slab. The in-flight test
-- (GATE-4) and the pass's place (GATE-7) are the node's, in its memory: no lease, no TIME.
-- KEYS[1] the set's slab, a hash:
--   SET (8 bytes, the set, big-endian) -> the set's ways: with one way, key (8 bytes) ..
--     bucket (32 bytes: tq tr lq lr, four big-endian int64); else one record per used way,
--     way (4 bytes, big-endian) .. key .. bucket, in any order; where tks = tq*refil + tr
--     (0 <= tr < refil) and last = lq*ivl + lr (0 <= lr < ivl)
--   SET .. 'b' -> the set's eviction budget (GATE-19), a bucket (32 bytes), absent until its
--     first eviction
--   'm' -> the slab's meta: the expiry its last PEXPIRE gave (a big-endian double, node ms)
--     and its sweep mark (a double: a new field that brings HLEN to it sweeps the slab)
-- ARGV[1] now_q now_r (16 bytes: now = now_q*ivl + now_r, divided in Go)
-- ARGV[2] the key (8 bytes)   ARGV[3] the set (8 bytes)
-- ARGV[4] the gate's constants: cap_q cap_r refil-1 ways (four big-endian int64, cap =
--   cap_q*refil + cap_r), then three big-endian doubles: ms per refill step, TTL margin ms,
--   most TTL ms
-- ARGV[5] the node's wall clock, Unix ms (decimal)
-- ARGV[6] the sweep's now, (q, r) as ARGV[1]: now less the margin in ticks (a sweep drops
--   only what an expiry would: a set full since that tick)
-- Returns {verdict, way, bucket record, deficit}: verdict 'pass' or 'limited'; way -1 and
-- bucket '' on a refused eviction, where deficit is cost - tks' of the budget's take as (q,
-- r), 16 bytes, and Go computes the retry; deficit '' otherwise.
-- Numbers as in lua/arith.lua, joined in front of this script (refill, charge, take,
-- lifetime). Strings are never compared with <.
local tunpack = unpack -- a table's elements; unpack is struct's below
local unpack, pack = struct.unpack, struct.pack
local n1, n2, n3, n4 = unpack('>i4I4i4I4', ARGV[1])
local c1, c2, c3, c4, f1, f2, w1, w2, mstep, margin, most = unpack('>i4I4i4I4i4I4i4I4ddd', ARGV[4])
local now_ms = tonumber(ARGV[5])
local key, sf = ARGV[2], ARGV[3]
local bf = sf .. 'b'
-- Reads and validation first: no write happens before the decision is known.
local got = redis.call('HMGET', KEYS[1], sf, bf, 'm')
local value, budget, meta = got[1], got[2], got[3]
local expiry, mark = 0, 64
if meta then
  if #meta ~= 16 then error('limcheck: bad slab meta') end
  expiry, mark = unpack('>dd', meta)
end
local one = w1 == 0 and w2 == 1
local size, rfmt = 44, '>I4c8i4I4i4I4i4I4i4I4' -- a record: way, key, bucket
if one then size, rfmt = 40, '>c8i4I4i4I4i4I4i4I4' end
if value and #value % size ~= 0 then error('limcheck: bad set record') end
if budget and #budget ~= 32 then error('limcheck: bad budget record') end
-- One pass over the set's ways: the key's way (GATE-15 (a)), the lowest full way (GATE-15
-- (b)) and the way whose refilled bucket holds the most tokens (GATE-16).
local way, old, full_way, most_way -- old: a full way that held the key
local t1, t2, t3, t4, l1, l2, l3, l4 -- the key's bucket, refilled at now
local mt1, mt2, mt3, mt4 -- the most tokens
local used = {} -- the ways the set's records hold
local nways = 0
if value then
  for p = 1, #value, size do
    local w, k, a1, a2, a3, a4, a5, a6, a7, a8
    if one then
      w, k, a1, a2, a3, a4, a5, a6, a7, a8 = 0, unpack(rfmt, value, p)
    else
      w, k, a1, a2, a3, a4, a5, a6, a7, a8 = unpack(rfmt, value, p)
    end
    if used[w] then error('limcheck: bad set record') end
    used[w], nways = true, nways + 1
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
end
local paid, d1, d2, d3, d4 -- the budget after an eviction's take; cost - tks' on a refusal
local p1, p2, p3, p4, p5, p6, p7, p8
if way == nil then -- GATE-15 (b): else the lowest way that is empty or full at now
  way = full_way
  local empty = 0
  while used[empty] do empty = empty + 1 end
  if (0 < w1 or (0 == w1 and empty < w2)) and (way == nil or empty < way) then way = empty end
  if way == nil then -- GATE-16: evict the way whose refilled bucket holds the most tokens
    way = most_way
    p1, p2, p3, p4, p5, p6, p7, p8, d1, d2, d3, d4 = charge(mt1, mt2, mt3, mt4, budget, n1, n2, n3, n4, c1, c2, c3, c4, f1, f2) -- GATE-19
    paid = true
  end
  t1, t2, t3, t4, l1, l2, l3, l4 = c1, c2, c3, c4, n1, n2, n3, n4 -- GATE-10: lim_bkt_new(cap, now)
end
-- GATE-5, LIM-11: take one token (the refill is done: the bucket is refilled at now).
local verdict
verdict, t1, t2, t3, t4 = take(t1, t2, t3, t4, f1, f2)
-- The slab's TTL (DIST-6): until each bucket written here (the way's, the budget's) is
-- full again, plus the margin. The slab's TTL only grows, so it covers every set it holds.
-- Its PEXPIRE is skipped while the expiry the last one gave (recorded in the meta, on the
-- node clocks: the margin covers their skew) covers ttl; a PEXPIRE gives a margin more
-- than ttl, so a busy slab skips it for about a margin.
local ttl = lifetime(p1, p2, p5, p6, d1, t1, t2, l1, l2, n1, n2, c1, c2, mstep, margin, most)
local renew = not (meta and expiry >= now_ms + ttl)
if renew then
  ttl = ttl + margin
  if ttl > most then ttl = most end
  if now_ms + ttl > expiry then expiry = now_ms + ttl end
end
-- Writes, all after the decision. A stored high half past int32 would be a logic error,
-- never data: struct.pack would wrap it, so it is refused first.
local fields = {}
if paid then -- GATE-19: on both outcomes
  if p1 < -2147483648 or p1 > 2147483647 or p5 < -2147483648 or p5 > 2147483647 then error('limcheck: int64 out of range') end
  fields[#fields + 1], fields[#fields + 2] = bf, pack('>i4I4i4I4i4I4i4I4', p1, p2, p3, p4, p5, p6, p7, p8)
end
local rec = ''
if not d1 then -- GATE-19: a refused eviction writes no way
  if t1 < -2147483648 or t1 > 2147483647 or l1 < -2147483648 or l1 > 2147483647 then error('limcheck: int64 out of range') end
  rec = pack('>i4I4i4I4i4I4i4I4', t1, t2, t3, t4, l1, l2, l3, l4)
  local v = key .. rec -- GATE-6: the way keeps the take's bucket
  if not one then -- the other records, less the way's and the key's old way (GATE-15 (b): emptied)
    local keep = {pack('>I4', way), v}
    if value then
      for p = 1, #value, size do
        local w = unpack('>I4', value, p)
        if w ~= way and w ~= old then keep[#keep + 1] = string.sub(value, p, p + size - 1) end
      end
    end
    v = table.concat(keep)
  end
  fields[#fields + 1], fields[#fields + 2] = sf, v
end
if renew then fields[#fields + 1], fields[#fields + 2] = 'm', pack('>dd', expiry, mark) end
redis.call('HSET', KEYS[1], tunpack(fields))
if not renew then -- the recorded expiry covers ttl
elseif meta then -- the slab's TTL only grows
  redis.call('PEXPIRE', KEYS[1], ttl, 'GT')
else -- a new slab (a slab always holds its meta)
  redis.call('PEXPIRE', KEYS[1], ttl)
end
-- The sweep (DIST-6 within a slab): when a new field brings HLEN to the mark, drop every
-- set and budget full since the sweep's now (an expiry of them would drop no more), then
-- set the mark to twice the fields left (64 at least): a slab holds at most about twice its
-- live sets, and each sweep's work is paid for by the new fields since the last.
if (not value and not d1) or (paid and not budget) then
  if redis.call('HLEN', KEYS[1]) >= mark then
    local s1, s2, s3, s4 = unpack('>i4I4i4I4', ARGV[6])
    local all = redis.call('HGETALL', KEYS[1])
    local drop, live = {}, 0
    for i = 1, #all, 2 do
      local f, v = all[i], all[i + 1]
      local carries = f == sf or f == bf or (#f ~= 8 and not (#f == 9 and string.sub(f, 9) == 'b'))
      if not carries and #f == 9 then -- a budget
        local a1, a2, a3, a4, a5, a6, a7, a8 = unpack('>i4I4i4I4i4I4i4I4', v)
        carries = not select(7, refill(a1, a2, a3, a4, a5, a6, a7, a8, s1, s2, s3, s4, c1, c2, c3, c4))
      elseif not carries then -- a set: it carries information while one of its ways does
        for p = size - 31, #v, size do -- each record's bucket, its last 32 bytes
          local a1, a2, a3, a4, a5, a6, a7, a8 = unpack('>i4I4i4I4i4I4i4I4', v, p)
          if not select(7, refill(a1, a2, a3, a4, a5, a6, a7, a8, s1, s2, s3, s4, c1, c2, c3, c4)) then carries = true; break end
        end
      end
      if carries then
        if f ~= 'm' then live = live + 1 end
      else
        drop[#drop + 1] = f
        if #drop == 1000 then redis.call('HDEL', KEYS[1], tunpack(drop)); drop = {} end
      end
    end
    if #drop > 0 then redis.call('HDEL', KEYS[1], tunpack(drop)) end
    mark = math.max(2 * live, 64)
    redis.call('HSET', KEYS[1], 'm', pack('>dd', expiry, mark))
  end
end
if d1 then -- GATE-19: limited, no way holds the key, the retry from the budget's take
  return {'limited', -1, '', pack('>i4I4i4I4', d1, d2, d3, d4)}
end
return {verdict, way, rec, ''}
