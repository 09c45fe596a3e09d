package protocol

// instances is how a Port chooses the inst of each trace's instances
// (PROTO-3): a port that keeps an id in fewer bits than PROTO-3 allows,
// or that brings a closed instance back when its id returns, fails at
// once. The k-th trace of a conversation (k from 0) opens its first
// instance on:
//
//   - k = 0, 4, 8, ...: a large id, the next of largeInsts in turn;
//   - k = 1, 5, 9, ...: the id of the trace just before it, closed by
//     then, reused (PROTO-5: close forgets the instance; PROTO-4: open
//     builds a fresh one);
//   - else the next small id, 1, 2, 3, ...
//
// A twin trace's second instance is one more (PROTO-12). Requests go in
// order and a trace's close is sent before the next trace's open, so no
// id is ever reused while its instance is open. The ids depend only on k:
// a single trace run alone (a vector, a counterexample confirmed on a
// fresh port) opens on largeInsts[0], and every run of more than one
// trace reuses an id.
//
// spec PROTO-3: "it is not reused while the instance is open"
// spec PROTO-3: "seq and inst are positive and stay below 2^53"
type instances struct {
	traces int64 // the traces given an id so far
	small  int64 // the last small id given
	last   int64 // the id of the last trace's first instance
}

// largeInsts are the large ids instances gives in turn: the largest a twin
// can have (its second instance is 2^53-1, the largest PROTO-3 allows, and
// an IEEE double's last exact integer), and one each side of the 16, 31 and
// 32 bit edges, where a port that keeps the id in an int16, int32 or uint32
// wraps.
var largeInsts = []int64{1<<53 - 2, 1<<31 - 1, 1<<32 - 1, 1 << 31, 1 << 32, 1<<16 - 1, 1<<53 - 3}

// next returns the id of the next trace's first instance.
func (in *instances) next() int64 {
	k := in.traces
	in.traces++
	switch k % 4 {
	case 0:
		in.last = largeInsts[(k/4)%int64(len(largeInsts))]
	case 1: // in.last: the trace before's, closed
	default:
		in.small++
		in.last = in.small
	}
	return in.last
}
