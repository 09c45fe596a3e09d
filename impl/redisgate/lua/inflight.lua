#!lua flags=no-writes
-- in-flight: the number of live leases (KEYS[1]) at the Redis clock.
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now_ms, '+inf')
