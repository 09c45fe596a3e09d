#!lua
-- clear_failures (spec STORE-6): the stamps go, the ban stays; a key with no
-- ban stops being tracked. KEYS[1] stamps, KEYS[2] ban-until, KEYS[3] tracked
-- set; ARGV[1] the throttle key.
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('SREM', KEYS[3], ARGV[1]) end
return 1
