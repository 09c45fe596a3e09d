#!lua
-- purge (spec STORE-9) over one batch of tracked keys, atomically.
-- KEYS[1] tracked set, then for each key i: KEYS[2i] stamps, KEYS[2i+1] ban-until.
-- ARGV[1] now hex16; ARGV[2] the exclusive lex bound below which stamps are out of
-- the window ('' : none is); ARGV[3] '1' when the batch is the whole tracked set as
-- a scan saw it; ARGV[4..] the throttle keys. Returns how many keys stopped being
-- tracked, or -1, having written nothing, when ARGV[3] is '1' and the set now holds
-- a key the batch lacks (one was tracked since the scan: the caller scans again, so
-- that a purge of one batch is one atomic step over every tracked key).
-- A key listed twice (SSCAN may) is counted once.
local function u64lt(a, b)
  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
  if ah ~= bh then return ah < bh end
  return tonumber(string.sub(a, 9, 16), 16) < tonumber(string.sub(b, 9, 16), 16)
end
local seen, listed = {}, 0
for i = 4, #ARGV do -- validation first
  local ban = redis.call('GET', KEYS[2 * (i - 3) + 1])
  if ban and #ban ~= 16 then return redis.error_reply('limcheck: bad ban-until record') end
  if not seen[ARGV[i]] and redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then listed = listed + 1 end
  seen[ARGV[i]] = true
end
if ARGV[3] == '1' and redis.call('SCARD', KEYS[1]) > listed then return -1 end
local n = 0
for i = 4, #ARGV do
  local z, b = KEYS[2 * (i - 3)], KEYS[2 * (i - 3) + 1]
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    if ARGV[2] ~= '' then redis.call('ZREMRANGEBYLEX', z, '-', ARGV[2]) end
    local ban = redis.call('GET', b)
    if ban and not u64lt(ARGV[1], ban) then -- ban-until <= now: 0
      redis.call('DEL', b)
      ban = false
    end
    if not ban and redis.call('EXISTS', z) == 0 then
      redis.call('SREM', KEYS[1], ARGV[i])
      n = n + 1
    end
  end
end
return n
