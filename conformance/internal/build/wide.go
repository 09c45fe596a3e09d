package build

// This file holds the cases where an implementation that keeps integers
// in narrower pieces goes wrong: doubles (exact only below 2^53) or 32-bit
// halves with a carry between them, as a Lua script in Redis does. Each is
// the case that kills a planted bug of the Redis scripts that no other
// case caught (fuzz/redis_mutant_test.go, TestEveryLuaMutantIsKilled);
// they hold for every port.

// wideCases: values above 2^53 that differ by one, a carry past 32 bits,
// and the tracking of a key whose failures are cleared under a ban.
func wideCases() []Draft {
	const t = 1 << 60 // doubles step by 256 here
	return []Draft{
		gateCase("time", gcfgW(3, 1, 1, 8, 1, 1, 1), "a refill from tick 2^32 - 1 to 2^32 carries past 32 bits: last becomes 2^32", on("LIM-9", "GATE-6"),
			admit("a", 1<<32-1), admit("a", 1<<32-1), admit("a", 1<<32), bucket("a", 1<<32)),
		thrCase("ban", tcfg(2, 1000, 100), "ban-untils above 2^53 one second apart are compared exactly: a failure a second later extends the ban by one (DEC-19 outside)", on("STORE-5", "THR-13", "DEC-19"),
			fail("k", t), fail("k", t), fail("k", t+1), check("k", t+1)),
		thrCase("purge", tcfg(1, 10, 100), "purge_expired a second before a ban above 2^53 ends keeps the ban: ban-until and now are compared exactly (DEC-21 outside)", on("STORE-9", "THR-16", "DEC-21"),
			fail("k", t), purge(t+99), check("k", t+99)),
		thrCase("purge", tcfg(2, 100, 50), "record_success keeps a banned key tracked: purge_expired after its ban counts it", on("STORE-6", "STORE-8", "STORE-9", "PROP-16"),
			fail("k", 0), fail("k", 1), success("k"), purge(51)),
		faultCase("record", fc, "over the seven store operations a failure after a clock step back does not shorten a ban (DEC-19 inside)", on("STORE-5", "THR-13", "DEC-19"),
			fail("k", 500), fail("k", 501), fail("k", 10), check("k", 100)),
	}
}
