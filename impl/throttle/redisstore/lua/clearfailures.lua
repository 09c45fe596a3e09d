#!lua
-- clear_failures (spec STORE-6): the stamps go, the ban stays; a key with no
-- ban stops being tracked (its field goes). KEYS[1] the partition (hash);
-- ARGV[1] the throttle key. The record: ban-until, then stamps, 8 bytes each.
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
if #v < 8 or #v % 8 ~= 0 then return redis.error_reply('limcheck: bad throttle record') end
if string.sub(v, 1, 8) == string.rep('\0', 8) then
  redis.call('HDEL', KEYS[1], ARGV[1])
elseif #v > 8 then
  redis.call('HSET', KEYS[1], ARGV[1], string.sub(v, 1, 8))
end
return 1
