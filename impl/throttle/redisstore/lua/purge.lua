#!lua
-- purge (spec STORE-9) over one batch of a partition's keys, atomically.
-- KEYS[1] the partition (hash: a field per tracked key, STORE-8). ARGV[1] now
-- (8 bytes); ARGV[2] the bound below which stamps are out of the window (8 bytes;
-- '': none is); ARGV[3] the HSCAN cursor ('0': the first batch); ARGV[4] batch size.
-- A first batch of a partition of at most ARGV[4] keys is the whole partition
-- (HGETALL). Returns {next cursor ('0': done), how many keys stopped being tracked}.
-- A key listed twice (HSCAN may) is handled once.
local zero, next, flat = string.rep('\0', 8), '0', nil
if ARGV[3] == '0' and redis.call('HLEN', KEYS[1]) <= tonumber(ARGV[4]) then
  flat = redis.call('HGETALL', KEYS[1])
else
  local r = redis.call('HSCAN', KEYS[1], ARGV[3], 'COUNT', ARGV[4])
  next, flat = r[1], r[2]
end
for i = 2, #flat, 2 do -- validation first
  if #flat[i] < 8 or #flat[i] % 8 ~= 0 then return redis.error_reply('limcheck: bad throttle record') end
end
local n, seen = 0, {}
for i = 1, #flat, 2 do
  local f, v = flat[i], flat[i + 1]
  if not seen[f] then
    seen[f] = true
    local w, j = v, 9
    if ARGV[2] ~= '' then -- stamps are largest first: cut at the first one out
      while j < #w and not lt(w, j, ARGV[2], 1) do j = j + 8 end
      w = string.sub(w, 1, j - 1)
    end
    if not lt(ARGV[1], 1, w, 1) then w = zero .. string.sub(w, 9) end -- ban-until <= now: 0
    if w == zero then
      redis.call('HDEL', KEYS[1], f)
      n = n + 1
    elseif w ~= v then
      redis.call('HSET', KEYS[1], f, w)
    end
  end
end
return {next, n}
