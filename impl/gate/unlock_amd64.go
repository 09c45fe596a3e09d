//go:build amd64 && !race

package gate

// storeRelease stores v at p with release ordering: a plain MOV, which on
// amd64 (total store order) is never reordered with the loads and stores
// before it, and a call the compiler moves no memory access across. It is
// what a set's unlock needs, at the cost of a store where atomic.Store
// costs an XCHG (a locked instruction). The next holder's CAS is the
// acquire. Under the race detector, which does not see assembly,
// unlock_other.go's atomic.Store is used instead.
//
//go:noescape
func storeRelease(p *uint64, v uint64)
