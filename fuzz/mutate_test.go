package fuzz

import (
	"flag"
	"os"
	"testing"
)

// mutateSkip names the tests of this package that never execute impl/: the
// trace codec's round trip. Under `make mutate` (LIMCHECK_MUTATE=1) gremlins
// runs this package once per impl/ mutant, and a test that does not run impl
// cannot kill one, so it is skipped there to save time. Normal runs (make
// test, go test) are unaffected.
const mutateSkip = `^TestPropDecodeInvertsEncode$`

func TestMain(m *testing.M) {
	if os.Getenv("LIMCHECK_MUTATE") != "" {
		flag.Parse()
		if f := flag.Lookup("test.skip"); f != nil && f.Value.String() == "" {
			_ = flag.Set("test.skip", mutateSkip)
		}
	}
	code := m.Run()
	stopRedis() // the package's redis-server, if a test started it
	os.Exit(code)
}
