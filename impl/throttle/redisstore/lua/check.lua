#!lua flags=no-writes
-- check's two reads at once (FusedStore.CheckState): {count, ban-until (8 bytes)}.
-- KEYS[1] the partition (hash); ARGV[1] the throttle key; ARGV[2] the window's
-- lower bound (8 bytes; '': every stamp). The record: ban-until, then stamps,
-- largest first, 8 bytes big-endian each.
local v = redis.call('HGET', KEYS[1], ARGV[1]) or string.rep('\0', 8)
if #v < 8 or #v % 8 ~= 0 then return redis.error_reply('limcheck: bad throttle record') end
if ARGV[2] == '' then return {(#v - 8) / 8, string.sub(v, 1, 8)} end
local j = 9
while j < #v and not lt(v, j, ARGV[2], 1) do j = j + 8 end
return {(j - 9) / 8, string.sub(v, 1, 8)}
