package protocol

import "time"

// Stderr returns the last 64 KiB the port wrote on stderr; nothing for a
// port in process. After Close (or a break) it first waits, up to a
// second, for the port's stderr to end, so that it holds all the port
// wrote, even the lines that came after its last reply.
func (p *Port) Stderr() string {
	if p.closed {
		select {
		case <-p.drained:
		case <-time.After(time.Second):
		}
	}
	return p.lastStderr()
}
