//go:build !amd64 || race

package gate

import "sync/atomic"

// storeRelease stores v at p with release ordering (see unlock_amd64.go).
func storeRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
