#!lua
-- add_failure, and fail_and_ban when ARGV[5] > 0 (spec STORE-4, STORE-5), on one
-- key's record: a field of its partition, ban-until then stamps, largest first,
-- each 8 bytes big-endian. KEYS[1] the partition (hash)   ARGV[1] the throttle key
-- ARGV[2] now (8 bytes)   ARGV[3] the window's lower bound (8 bytes; '': every stamp)
-- ARGV[4] k, stamps kept   ARGV[5] threshold (0: add_failure alone; <= k)
-- ARGV[6] until (8 bytes)   ARGV[7] TTL ms
-- KEYS[2], when given, the key's reservations (reserve.lua): ARGV[8], the reservation
-- this failure settles, leaves it in the same step (ReserveStore.FailReserved).
-- Returns {count, ban-until (8 bytes)}. No uint64 is a Lua number: lt compares halves.
local function count(v, lo) -- stamps t >= lo: a prefix (min(count, k): exact)
  if lo == '' then return (#v - 8) / 8 end
  local j = 9
  while j < #v and not lt(v, j, lo, 1) do j = j + 8 end
  return (j - 9) / 8
end
-- Reads and validation first: no write before an error can be raised.
local v = redis.call('HGET', KEYS[1], ARGV[1]) or string.rep('\0', 8)
if #v < 8 or #v % 8 ~= 0 then return redis.error_reply('limcheck: bad throttle record') end
local k, threshold, now = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[2]
if #v > 8 + 8 * k then v = string.sub(v, 1, 8 + 8 * k) end
local i = 9 -- after every stamp >= now
while i < #v and not lt(v, i, now, 1) do i = i + 8 end
if i <= 8 + 8 * k then -- keep the k largest stamps (PROP-17)
  v = string.sub(v, 1, i - 1) .. now .. string.sub(v, i, 8 * k)
end
local c = count(v, ARGV[3])
if threshold > 0 and c >= threshold and lt(v, 1, ARGV[6], 1) then
  v = ARGV[6] .. string.sub(v, 9) -- STORE-5: max(ban-until, until)
end
redis.call('HSET', KEYS[1], ARGV[1], v)
if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[8]) end
if redis.call('PEXPIRE', KEYS[1], ARGV[7], 'GT') == 0 then -- the TTL only grows (DIST-6)
  redis.call('PEXPIRE', KEYS[1], ARGV[7], 'NX') -- a new partition has none yet
end
return {c, string.sub(v, 1, 8)}
