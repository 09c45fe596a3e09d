// Package bad breaks every part of the purity rule once.
package bad

import (
	_ "crypto/rand"  // want `purity: import of "crypto/rand" brings in randomness; the model may import only pure packages`
	_ "math/rand"    // want `purity: import of "math/rand" brings in randomness`
	_ "math/rand/v2" // want `purity: import of "math/rand/v2" brings in randomness`
	_ "net"          // want `purity: import of "net" brings in network I/O`
	_ "net/http"     // want `purity: import of "net/http" brings in network I/O`
	_ "os"           // want `purity: import of "os" brings in process state`
	_ "os/exec"      // want `purity: import of "os/exec" brings in subprocesses`
	_ "os/signal"    // want `purity: import of "os/signal" brings in asynchronous signals`
	_ "reflect"      // want `purity: import of "reflect" brings in reflection`
	_ "runtime"      // want `purity: import of "runtime" brings in scheduler`
	"sync"           // want `purity: import of "sync" brings in locks`
	_ "sync/atomic"  // want `purity: import of "sync/atomic" brings in shared mutable state`
	_ "syscall"      // want `purity: import of "syscall" brings in system calls`
	clk "time"
	_ "unsafe" // want `purity: import of "unsafe" brings in unchecked memory access`
)

var counter int // want `purity: package-level variable "counter" is mutable state; use a const, a function or a field`

var (
	mu      sync.Mutex // want `purity: package-level variable "mu" is mutable state`
	_, seen = 1, 2     // want `purity: package-level variable "seen" is mutable state`
)

func init() { // want `purity: func init runs hidden package-level initialization`
	counter++
}

// Spawn starts a goroutine.
func Spawn(f func()) {
	go f() // want `purity: go statement starts a goroutine; the model must be sequential`
}

// Wait selects, sends and uses channel types.
func Wait(c chan int) { // want `purity: channel type communicates between goroutines; the model must be sequential`
	c <- 1   // want `purity: channel send communicates between goroutines; the model must be sequential`
	select { // want `purity: select statement waits on channels; the model must be sequential`
	default:
	}
}

// Clock uses every wall-clock function through a renamed import.
func Clock() {
	start := clk.Now()              // want `purity: time.Now reads the wall clock; pass time in as a value`
	_ = clk.Since(start)            // want `purity: time.Since reads the wall clock`
	_ = clk.Until(start)            // want `purity: time.Until reads the wall clock`
	clk.Sleep(0)                    // want `purity: time.Sleep waits on the wall clock`
	_ = clk.After(0)                // want `purity: time.After waits on the wall clock`
	_ = clk.AfterFunc(0, func() {}) // want `purity: time.AfterFunc waits on the wall clock`
	_ = clk.Tick(1)                 // want `purity: time.Tick waits on the wall clock`
	_ = clk.NewTimer(0)             // want `purity: time.NewTimer waits on the wall clock`
	_ = clk.NewTicker(1)            // want `purity: time.NewTicker waits on the wall clock`
	now := clk.Now                  // want `purity: time.Now reads the wall clock`
	_ = now
}
