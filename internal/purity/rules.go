package purity

// forbiddenImports maps each import path the model may not use to what it
// would bring into the model. The text completes the sentence
// "import of P brings in ...".
var forbiddenImports = map[string]string{
	"sync":         "locks and shared state",
	"sync/atomic":  "shared mutable state",
	"math/rand":    "randomness",
	"math/rand/v2": "randomness",
	"crypto/rand":  "randomness",
	"os":           "process state and I/O",
	"os/exec":      "subprocesses",
	"os/signal":    "asynchronous signals",
	"net":          "network I/O",
	"net/http":     "network I/O and goroutines",
	"syscall":      "system calls",
	"unsafe":       "unchecked memory access",
	"runtime":      "scheduler and runtime state",
	"reflect":      "reflection around the type system",
}

// wallClock maps each package-level function of package time that the
// model may not use to what it does. The text completes the sentence
// "time.F ...".
var wallClock = map[string]string{
	"Now":       "reads the wall clock",
	"Since":     "reads the wall clock",
	"Until":     "reads the wall clock",
	"Sleep":     "waits on the wall clock",
	"After":     "waits on the wall clock",
	"AfterFunc": "waits on the wall clock",
	"Tick":      "waits on the wall clock",
	"NewTimer":  "waits on the wall clock",
	"NewTicker": "waits on the wall clock",
}

// Rule texts: each diagnostic names the construct and then the rule part
// it breaks.
const (
	ruleState      = "is mutable state; use a const, a function or a field"
	ruleSequential = "the model must be sequential"
	rulePure       = "the model may import only pure packages"
	ruleClock      = "pass time in as a value"
	ruleInit       = "runs hidden package-level initialization; the model must have no package state"
)
