package redisstore

import (
	"encoding/binary"
	"fmt"
)

// A key's record, the value of its field in its partition, is its
// ban-until then its stamps, largest first, each 8 bytes big-endian: 8 +
// 8n bytes for n <= k stamps. A key is tracked (STORE-8) iff it has a
// field: no script leaves a record with no stamp and ban-until 0.

// be8 is v as 8 bytes big-endian.
func be8(v uint64) string { return string(binary.BigEndian.AppendUint64(make([]byte, 0, 8), v)) }

// bound is the least stamp in the window at now, as 8 bytes: a stamp t
// counts iff t + window > now, exactly iff t >= now - window + 1 when now
// >= window; "" when every stamp counts (now < window).
//
// spec DIST-8: "the window's bound is computed in Go"
func bound(now, window uint64) string {
	if now < window {
		return ""
	}
	return be8(now - window + 1)
}

// record checks a record's shape: 8 + 8n bytes.
func record(v string) error {
	if len(v) < 8 || len(v)%8 != 0 {
		return fmt.Errorf("redisstore: bad throttle record of %d bytes", len(v))
	}
	return nil
}

// banOf is a record's ban-until.
func banOf(v string) uint64 { return binary.BigEndian.Uint64([]byte(v[:8])) }

// countOf is how many of a record's stamps are >= lo (bound's value; ""
// counts every stamp): its stamps are largest first, so a prefix.
func countOf(v, lo string) uint64 {
	n := uint64(len(v)-8) / 8
	if lo == "" {
		return n
	}
	b := binary.BigEndian.Uint64([]byte(lo))
	for i := uint64(0); i < n; i++ {
		if binary.BigEndian.Uint64([]byte(v[8+8*i:16+8*i])) < b {
			return i
		}
	}
	return n
}

// hex16 is v as 16 hex digits (a reservation member's stamp).
func hex16(v uint64) string { return fmt.Sprintf("%016x", v) }

// lower is the ZLEXCOUNT lower bound of the reservation members hex16(t)
// ... with t + window > now (exact: every member when now < window, else t
// >= now - window + 1).
func lower(now, window uint64) string {
	if now < window {
		return "-"
	}
	return "[" + hex16(now-window+1)
}

// member is a fresh reservation member for t: unique per call.
func (s *Store) member(t uint64) string {
	return hex16(t) + s.opid + hex16(s.seq.Add(1))
}
