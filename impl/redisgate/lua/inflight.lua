#!lua flags=no-writes
-- in-flight: the number of live leases (KEYS[1]) at now of the lease clock: ARGV[1] in ms
-- (decimal), or '' for the Redis clock (TIME).
local now_ms = tonumber(ARGV[1])
if not now_ms then
  local t = redis.call('TIME')
  now_ms = t[1] * 1000 + math.floor(t[2] / 1000)
end
return redis.call('ZCOUNT', KEYS[1], '(' .. now_ms, '+inf')
