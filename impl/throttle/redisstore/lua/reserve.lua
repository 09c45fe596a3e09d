#!lua
-- reserve (ReserveStore.Reserve, an extension of impl/throttle, not a spec.md
-- operation): check a key and reserve an attempt on it in one step.
-- KEYS[1] stamps (zset), KEYS[2] ban-until (16 hex digits), KEYS[3] reservations
-- (zset, every score 0, member hex16(t) .. opid: ordered by t as stamps are).
-- ARGV[1] count's lex lower bound ('-' or '[' .. hex16(now - window + 1))
-- ARGV[2] now hex16   ARGV[3] threshold   ARGV[4] held, the caller's own entries
-- ARGV[5] the new reservation's member (hex16(now) .. opid)   ARGV[6] TTL ms
-- Returns {count, ban-until hex16, reservations counting before, member or ''}.
local function u64lt(a, b)
  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
  if ah ~= bh then return ah < bh end
  return tonumber(string.sub(a, 9, 16), 16) < tonumber(string.sub(b, 9, 16), 16)
end
-- Reads and validation first: no write before an error can be raised.
local ban = redis.call('GET', KEYS[2])
if ban and #ban ~= 16 then return redis.error_reply('limcheck: bad ban-until record') end
ban = ban or '0000000000000000'
local c = redis.call('ZLEXCOUNT', KEYS[1], ARGV[1], '+') -- min(count, k)
if ARGV[1] ~= '-' then -- reservations out of the window count no more: drop them
  redis.call('ZREMRANGEBYLEX', KEYS[3], '-', '(' .. string.sub(ARGV[1], 2))
end
local r = redis.call('ZCARD', KEYS[3])
if u64lt(ARGV[2], ban) then return {c, ban, r, ''} end -- banned: now < ban-until
local p = r + tonumber(ARGV[4])
if p > 0 and c + p >= tonumber(ARGV[3]) then return {c, ban, r, ''} end -- busy
redis.call('ZADD', KEYS[3], 0, ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[6]) -- a crashed node's reservation goes with the TTL
return {c, ban, r, ARGV[5]}
