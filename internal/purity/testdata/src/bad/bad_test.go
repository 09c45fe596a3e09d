package bad

import (
	"sync"
	"time"
)

// Tests may keep package-level state, take locks and read the clock.
var (
	calls  int
	testMu sync.Mutex
	began  = time.Now()
)

func init() { calls++ }
