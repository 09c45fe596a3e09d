#!lua
-- add_failure, and fail_and_ban when ARGV[5] > 0 (spec STORE-4, STORE-5).
-- KEYS[1] stamps (zset), KEYS[2] ban-until (16 hex digits), KEYS[3] tracked set
-- ARGV[1] the new stamp's member (hex16(now) .. opid)   ARGV[2] count's lex lower bound
-- ARGV[3] k, stamps kept (<= 16384)   ARGV[4] the throttle key
-- ARGV[5] threshold (0: add_failure alone; <= k)   ARGV[6] until, hex16   ARGV[7] TTL ms
-- KEYS[4], when given, the reservations set (reserve.lua): ARGV[8], the reservation
-- this failure settles, leaves it in the same step (ReserveStore.FailReserved).
-- Returns {count, ban-until hex16}. No uint64 is a Lua number: u64lt compares halves.
local function u64lt(a, b)
  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
  if ah ~= bh then return ah < bh end
  return tonumber(string.sub(a, 9, 16), 16) < tonumber(string.sub(b, 9, 16), 16)
end
-- Reads and validation first: no write before an error can be raised.
local k, threshold, ttl = tonumber(ARGV[3]), tonumber(ARGV[5]), ARGV[7]
local ban = redis.call('GET', KEYS[2])
if ban and #ban ~= 16 then return redis.error_reply('limcheck: bad ban-until record') end
redis.call('ZADD', KEYS[1], 0, ARGV[1])
if KEYS[4] then redis.call('ZREM', KEYS[4], ARGV[8]) end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -k - 1) -- keep the k largest stamps (PROP-17)
redis.call('PEXPIRE', KEYS[1], ttl)
if ban then redis.call('PEXPIRE', KEYS[2], ttl) else ban = '0000000000000000' end -- no ban: nothing to expire
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ttl)
local c = redis.call('ZLEXCOUNT', KEYS[1], ARGV[2], '+') -- min(count, k): small, exact
if threshold > 0 and c >= threshold and u64lt(ban, ARGV[6]) then
  ban = ARGV[6]
  redis.call('SET', KEYS[2], ban, 'PX', ttl) -- STORE-5: max(ban-until, until)
end
return {c, ban}
