//go:build unix && !linux

package protocol

// waitLeader reports that it cannot wait for a leader without reaping it
// here: the group is killed when the port breaks, is stopped or is
// closed, but the helpers of a port whose leader exited on its own may
// outlive it.
func waitLeader(int) bool { return false }
