#!lua
-- clear (spec STORE-7): stamps and ban go, the key is untracked.
-- KEYS[1] stamps, KEYS[2] ban-until, KEYS[3] tracked set; ARGV[1] the throttle key.
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
