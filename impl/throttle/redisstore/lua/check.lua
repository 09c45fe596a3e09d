#!lua flags=no-writes
-- check's two reads at once (FusedStore.CheckState): {count, ban-until hex16}.
-- KEYS[1] stamps, KEYS[2] ban-until; ARGV[1] count's lex lower bound.
local ban = redis.call('GET', KEYS[2]) or '0000000000000000'
return {redis.call('ZLEXCOUNT', KEYS[1], ARGV[1], '+'), ban}
