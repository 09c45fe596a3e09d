#!lua
-- ban (spec STORE-5): ban-until = max(ban-until, until); returns it (8 bytes).
-- KEYS[1] the partition (hash); ARGV[1] the throttle key, ARGV[2] until (8 bytes),
-- ARGV[3] TTL ms. The record: ban-until, then stamps, 8 bytes big-endian each.
local v = redis.call('HGET', KEYS[1], ARGV[1]) or string.rep('\0', 8)
if #v < 8 or #v % 8 ~= 0 then return redis.error_reply('limcheck: bad throttle record') end
if lt(v, 1, ARGV[2], 1) then -- until > 0: the key is tracked (STORE-8)
  v = ARGV[2] .. string.sub(v, 9)
  redis.call('HSET', KEYS[1], ARGV[1], v)
  if redis.call('PEXPIRE', KEYS[1], ARGV[3], 'GT') == 0 then -- the TTL only grows (DIST-6)
    redis.call('PEXPIRE', KEYS[1], ARGV[3], 'NX') -- a new partition has none yet
  end
end
return string.sub(v, 1, 8)
