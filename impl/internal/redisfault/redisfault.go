// Package redisfault classifies the errors of a rueidis call the way spec
// DIST-5 does, for the Redis-backed gate and throttle store alike, and
// retries the replies that say a command did not run yet ([Retrying]).
package redisfault

import (
	"errors"
	"net"

	"github.com/redis/rueidis"
)

// Definite reports whether err shows that the script never ran: a Redis
// error reply (every script validates before its first write, and its
// #!lua flags make a refusal such as out-of-memory come before it runs), a
// failed dial (refused, reset during the handshake) or a closed client.
// Any other failure of a write is ambiguous: it was sent and may have run.
//
// spec DIST-5: "A failure is *definite* when the operation cannot have run"
func Definite(err error) bool {
	if _, ok := rueidis.IsRedisErr(err); ok {
		return true
	}
	var op *net.OpError
	return (errors.As(err, &op) && op.Op == "dial") || errors.Is(err, rueidis.ErrClosing)
}
