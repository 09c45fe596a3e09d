#!lua
-- ban (spec STORE-5): ban-until = max(ban-until, until); returns it (hex16).
-- KEYS[1] stamps, KEYS[2] ban-until, KEYS[3] tracked set; ARGV[1] until hex16,
-- ARGV[2] the throttle key, ARGV[3] TTL ms.
local function u64lt(a, b)
  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
  if ah ~= bh then return ah < bh end
  return tonumber(string.sub(a, 9, 16), 16) < tonumber(string.sub(b, 9, 16), 16)
end
local ban = redis.call('GET', KEYS[2])
if ban and #ban ~= 16 then return redis.error_reply('limcheck: bad ban-until record') end
ban = ban or '0000000000000000'
if u64lt(ban, ARGV[1]) then
  ban = ARGV[1]
  redis.call('SET', KEYS[2], ban, 'PX', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[2])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
return ban
