//go:build fuzzsmoke

package fuzz

// stopRedis has nothing to stop in the fuzz-instrumented binary: the
// Makefile's fuzzrun builds it with the fuzzsmoke tag, which leaves the Redis
// tests (redis_*_test.go, and with them rueidis) out, since no fuzz target
// uses Redis.
func stopRedis() {}
