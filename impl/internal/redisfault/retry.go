package redisfault

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// Busy reports whether err is a Redis error reply that says the command
// did not run here yet and may run after a moment: TRYAGAIN (a command on
// several keys of a slot that is moving between cluster nodes, some keys
// moved and some not), CLUSTERDOWN (the cluster cannot serve the slot now)
// or LOADING (the server is loading its data). These are what rueidis
// retries for a command marked retryable; they are definite (Definite), so
// a retry is safe for every command, a write included.
func Busy(err error) bool {
	e, ok := rueidis.IsRedisErr(err)
	return ok && (e.IsTryAgain() || e.IsClusterDown() || e.IsLoading())
}

// Retrying returns c with its Do, on a cluster client, retrying each command
// that got a Busy reply, after a short wait that doubles from 1ms up to
// 50ms, until the command gets another reply or its context ends (the last
// Busy reply is then the result). rueidis follows MOVED and ASK itself, for
// every command; it retries a Busy reply only for a command marked
// retryable, which a script that writes is not. So during a live slot
// migration an admit on two keys of the slot gets TRYAGAIN until the slot's
// keys are all on one node, and Retrying waits that out within the call's
// timeout. A context without a deadline waits as long as the replies stay
// Busy. Every other method is c's. Do on any other client (one server,
// Sentinel) is c's as well: it meets no TRYAGAIN, and a retry costs each
// call its command's reuse (rueidis recycles a command once it has a reply;
// one kept for a retry is not). Retrying calls nothing of c.
func Retrying(c rueidis.Client) rueidis.Client {
	if _, ok := c.(retrying); ok || c == nil {
		return c
	}
	return retrying{c}
}

type retrying struct{ rueidis.Client }

// Do implements rueidis.Client.
func (r retrying) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	if r.Client.Mode() != rueidis.ClientModeCluster {
		return r.Client.Do(ctx, cmd)
	}
	cmd = cmd.Pin() // rueidis recycles a command once it has a reply: keep it for a retry
	wait := time.Millisecond
	for {
		res := r.Client.Do(ctx, cmd)
		if !Busy(res.Error()) {
			return res
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
