-- The gate scripts' arithmetic, one copy for lua/admit.lua and lua/spread.lua: Go joins this
-- file after each one's first line (its #!lua), so that the server still sees one
-- self-contained script each (redisgate.JoinArith). Plain functions local to the chunk.
-- Numbers: each int64 is a pair (hi, lo), hi signed, lo in [0, 2^32), both exact in
-- doubles; a (q, r) pair of them is four numbers, compared lexicographically (q first).
-- Additions carry, subtractions borrow. Every value a decision uses stays an integer of
-- magnitude < 2^34 in each half; only the TTLs are approximate (and rounded up). The
-- script passes now (n1 n2, n3 n4), cap (c1 c2, c3 c4), refil - 1 (f1 f2) and the TTL
-- constants as arguments.
-- Cost: every run makes each function here (a closure) again, about 0.1 us apiece, and a
-- closure pays about 0.03 us more for each local it captures (Redis 7.0): so they take
-- what they need as arguments and capture none of the script's locals; only charge
-- captures one, refill.
-- refill: LIM-8..LIM-10 at x (x1 x2, x3 x4) of tokens (t1 t2, t3 t4) and last (l1 l2, l3
-- l4) under cap (c1 c2, c3 c4); returns the refilled tokens, the new last's quotient (its
-- remainder never changes) and whether the bucket is full at x (GATE-14).
local function refill(t1, t2, t3, t4, l1, l2, l3, l4, x1, x2, x3, x4, c1, c2, c3, c4)
  local B = 4294967296
  if c1 < t1 or (c1 == t1 and (c2 < t2 or (c2 == t2 and (c3 < t3 or (c3 == t3 and c4 < t4))))) then
    t1, t2, t3, t4 = c1, c2, c3, c4 -- min(tks, cap) first
  end
  if not (x1 < l1 or (x1 == l1 and (x2 < l2 or (x2 == l2 and (x3 < l3 or (x3 == l3 and x4 < l4)))))) then -- x >= last
    local sh, sl = x1 - l1, x2 - l2 -- steps = x_q - last_q - [x_r < last_r]
    if sl < 0 then sh, sl = sh - 1, sl + B end
    if x3 < l3 or (x3 == l3 and x4 < l4) then
      sl = sl - 1
      if sl < 0 then sh, sl = sh - 1, sl + B end
    end
    l1, l2 = l1 + sh, l2 + sl -- last' = (last_q + steps)*ivl + last_r
    if l2 >= B then l1, l2 = l1 + 1, l2 - B end
    t1, t2 = t1 + sh, t2 + sl -- tks + steps*refil, in (q, r)
    if t2 >= B then t1, t2 = t1 + 1, t2 - B end
    if c1 < t1 or (c1 == t1 and (c2 < t2 or (c2 == t2 and (c3 < t3 or (c3 == t3 and c4 < t4))))) then
      t1, t2, t3, t4 = c1, c2, c3, c4
    end
  end
  return t1, t2, t3, t4, l1, l2, t1 == c1 and t2 == c2 and t3 == c3 and t4 == c4
end
-- charge: GATE-19 at now (n1 n2, n3 n4), the eviction of a way whose bucket, refilled at
-- now, holds (mt1 mt2, mt3 mt4) tokens (it is not full): it costs cap - tks' (>= 1), taken
-- from the set's budget (its record, 32 bytes, or nil), born full at now where absent or
-- full at now. Returns the budget after the take (eight numbers, a bucket as stored) and,
-- on a refusal (LIM-12: the budget is then the refilled one, kept), the deficit cost - tks'
-- as (q, r): four numbers, nil when the eviction is paid (LIM-11).
local function charge(mt1, mt2, mt3, mt4, budget, n1, n2, n3, n4, c1, c2, c3, c4, f1, f2)
  local B = 4294967296
  -- subqr: a - b of two (q, r) pairs, the remainder brought back into [0, refil). Made
  -- only on an eviction.
  local function subqr(a1, a2, a3, a4, b1, b2, b3, b4)
    local q1, q2, r1, r2 = a1 - b1, a2 - b2, a3 - b3, a4 - b4
    if q2 < 0 then q1, q2 = q1 - 1, q2 + B end
    if r2 < 0 then r1, r2 = r1 - 1, r2 + B end
    if r1 < 0 then
      q2 = q2 - 1
      if q2 < 0 then q1, q2 = q1 - 1, q2 + B end
      r1, r2 = r1 + f1, r2 + f2 + 1 -- + refil (r2 + f2 + 1 < 2^33: one carry)
      if r2 >= B then r1, r2 = r1 + 1, r2 - B end
    end
    return q1, q2, r1, r2
  end
  local k1, k2, k3, k4 = subqr(c1, c2, c3, c4, mt1, mt2, mt3, mt4)
  local p1, p2, p3, p4, p5, p6, p7, p8 = c1, c2, c3, c4, n1, n2, n3, n4
  if budget then
    local a1, a2, a3, a4, a5, a6, a7, a8 = struct.unpack('>i4I4i4I4i4I4i4I4', budget)
    local r1, r2, r3, r4, r5, r6, full = refill(a1, a2, a3, a4, a5, a6, a7, a8, n1, n2, n3, n4, c1, c2, c3, c4)
    if not full then p1, p2, p3, p4, p5, p6, p7, p8 = r1, r2, r3, r4, r5, r6, a7, a8 end
  end
  local d1, d2, d3, d4
  if p1 < k1 or (p1 == k1 and (p2 < k2 or (p2 == k2 and (p3 < k3 or (p3 == k3 and p4 < k4))))) then -- LIM-12: refused, the refill kept
    d1, d2, d3, d4 = subqr(k1, k2, k3, k4, p1, p2, p3, p4)
  else -- LIM-11
    p1, p2, p3, p4 = subqr(p1, p2, p3, p4, k1, k2, k3, k4)
  end
  return p1, p2, p3, p4, p5, p6, p7, p8, d1, d2, d3, d4
end
-- take: GATE-5, LIM-11 of one token from tokens (t1 t2, t3 t4) refilled at now, where
-- refil - 1 is (f1 f2). Returns 'pass' and the tokens less one, or 'limited' and the tokens
-- as they were (none).
local function take(t1, t2, t3, t4, f1, f2)
  local B = 4294967296
  local verdict = 'limited'
  if t1 ~= 0 or t2 ~= 0 or t3 ~= 0 or t4 ~= 0 then
    verdict = 'pass'
    if t3 == 0 and t4 == 0 then -- borrow a quotient: (tq - 1, refil - 1)
      t2 = t2 - 1
      if t2 < 0 then t1, t2 = t1 - 1, t2 + B end
      t3, t4 = f1, f2
    else
      t4 = t4 - 1
      if t4 < 0 then t3, t4 = t3 - 1, t4 + B end
    end
  end
  return verdict, t1, t2, t3, t4
end
-- lifetime: the TTL (DIST-6), ms, that a set needs at now (its quotient n1 n2) after a
-- write of the budget (p1 p2: its tokens' quotient, p5 p6: its last's; p1 nil: not
-- written) and of the way's bucket (t1 t2: its tokens' quotient, l1 l2: its last's) unless
-- d1 (a refused eviction writes no way), under cap_q (c1 c2): at least the real time until
-- each bucket written is full again (it then carries no information, GATE-14; an absent
-- budget is born full, GATE-19), from steps <= (cap_q - tq) + 1 plus, after a step back,
-- (last_q - now_q) + 1; doubles of mstep ms a step, rounded up, plus margin ms, at most
-- most ms.
local function lifetime(p1, p2, p5, p6, d1, t1, t2, l1, l2, n1, n2, c1, c2, mstep, margin, most)
  local B = 4294967296
  local n_steps = 0
  if p1 then
    n_steps = (c1 - p1) * B + (c2 - p2) + 2
    local ahead = (p5 - n1) * B + (p6 - n2)
    if ahead > 0 then n_steps = n_steps + ahead + 1 end
  end
  if not d1 then
    local s = (c1 - t1) * B + (c2 - t2) + 2
    local ahead = (l1 - n1) * B + (l2 - n2)
    if ahead > 0 then s = s + ahead + 1 end
    if s > n_steps then n_steps = s end
  end
  local ttl = n_steps * mstep
  ttl = math.ceil(ttl + ttl * 1e-9) + margin
  if not (ttl < most) then ttl = most end -- also catches inf and nan
  return ttl
end
