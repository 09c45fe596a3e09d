// Package slowdown scales the time limits of tests to the machine they run
// on, so that a test fails only on wrong behaviour, never because the
// machine is slow or busy.
//
// A test's time limit (a handshake or request timeout it gives a port, a
// porcupine budget, the most a "never hangs" check waits) is written as a
// generous base value for a quiet 2-core machine and passed through
// [Scale]. LIMCHECK_TEST_SLOWDOWN, a number >= 1 (default 1), multiplies
// every such limit at once: set it to 4 on a machine that is four times
// slower or busier than that. A limit that a test waits out on purpose (a
// hang detected by its timeout) stays short: the test's result does not
// depend on it.
//
// It imports only the standard library and is imported only by tests.
package slowdown

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Env is the name of the environment variable that holds the factor.
const Env = "LIMCHECK_TEST_SLOWDOWN"

// Factor returns LIMCHECK_TEST_SLOWDOWN as a number >= 1, 1 when it is
// unset. It panics on a value that is not a finite number >= 1: a test run
// with a mistyped knob must say so, not run with limits the user did not
// ask for.
func Factor() float64 {
	f, err := parse(os.Getenv(Env))
	if err != nil {
		panic(err)
	}
	return f
}

// parse reads the factor from s, the variable's value.
func parse(s string) (float64, error) {
	if s == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 1 || f > 1000 || f != f {
		return 0, fmt.Errorf("slowdown: %s=%q: want a number from 1 to 1000", Env, s)
	}
	return f, nil
}

// Scale returns d times [Factor].
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}
