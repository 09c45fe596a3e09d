#!lua
-- reserve (ReserveStore.Reserve, an extension of impl/throttle, not a spec.md
-- operation): check a key and reserve an attempt on it in one step.
-- KEYS[1] the partition (hash; the record: ban-until, then stamps, largest first,
-- 8 bytes big-endian each), KEYS[2] the key's reservations (zset in the partition's
-- slot, every score 0, member hex16(t) .. opid: ordered by t as a lex range).
-- ARGV[1] the throttle key   ARGV[2] the window's lower bound (8 bytes; '': all)
-- ARGV[3] the reservations' lex lower bound ('-' or '[' .. hex16(now - window + 1))
-- ARGV[4] now (8 bytes)   ARGV[5] threshold   ARGV[6] held, the caller's own entries
-- ARGV[7] the new reservation's member (hex16(now) .. opid)   ARGV[8] TTL ms
-- Returns {count, ban-until (8 bytes), reservations counting before, member or ''}.
-- Reads and validation first: no write before an error can be raised.
local v = redis.call('HGET', KEYS[1], ARGV[1]) or string.rep('\0', 8)
if #v < 8 or #v % 8 ~= 0 then return redis.error_reply('limcheck: bad throttle record') end
local c, ban = (#v - 8) / 8, string.sub(v, 1, 8) -- min(count, k)
if ARGV[2] ~= '' then
  local j = 9
  while j < #v and not lt(v, j, ARGV[2], 1) do j = j + 8 end
  c = (j - 9) / 8
end
if ARGV[3] ~= '-' then -- reservations out of the window count no more: drop them
  redis.call('ZREMRANGEBYLEX', KEYS[2], '-', '(' .. string.sub(ARGV[3], 2))
end
local r = redis.call('ZCARD', KEYS[2])
if lt(ARGV[4], 1, ban, 1) then return {c, ban, r, ''} end -- banned: now < ban-until
local p = r + tonumber(ARGV[6])
if p > 0 and c + p >= tonumber(ARGV[5]) then return {c, ban, r, ''} end -- busy
redis.call('ZADD', KEYS[2], 0, ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[8]) -- a crashed node's reservation goes with the TTL
return {c, ban, r, ARGV[7]}
