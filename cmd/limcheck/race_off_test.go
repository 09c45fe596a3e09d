//go:build !race

package main

// raceEnabled says the race detector built this test binary.
const raceEnabled = false
