package redistest

import (
	"net"
	"sync"
	"sync/atomic"
)

// Mode is what a [Proxy] does to the traffic through it.
type Mode int32

// The proxy's modes. Refuse and Reset are definite faults (the client learns
// that nothing was sent before it sends a command); Blackhole and DropReply
// are ambiguous (the command may have been executed and the client cannot
// tell).
const (
	// Pass forwards everything both ways.
	Pass Mode = iota
	// Refuse closes the listening socket (connects are refused) and resets
	// every open connection.
	Refuse
	// Reset accepts connections and resets them at once, and resets every
	// open connection.
	Reset
	// Blackhole forwards nothing either way and keeps connections open: a
	// client waits for a reply until its own timeout.
	Blackhole
	// DropReply forwards requests to the server, discards the next reply
	// that comes back on an open connection, resets that connection and
	// returns to Pass: the server executed the command, the client never
	// hears it. Set it once the client is connected (its handshake done).
	DropReply
	// DropReplyThenRefuse is DropReply, then Refuse at once instead of
	// Pass: the server executed the command, the client never hears it,
	// and every later connect is refused (a client's retry fails
	// definitely after an attempt that may have run).
	DropReplyThenRefuse
)

// Proxy is a TCP proxy on loopback between a client and a redis-server.
type Proxy struct {
	target string
	mode   atomic.Int32
	drops  atomic.Int64 // replies discarded in DropReply mode

	mu    sync.Mutex
	addr  string
	ln    net.Listener
	conns map[*pair]struct{}
	done  bool
}

type pair struct{ client, server *net.TCPConn }

// NewProxy starts a proxy to target (host:port) in mode Pass; t's cleanup
// closes it.
func NewProxy(t TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{target: target, conns: map[*pair]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: proxy listen: %v", err)
	}
	p.addr = ln.Addr().String()
	p.ln = ln
	go p.accept(ln)
	t.Cleanup(p.Close)
	return p
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.addr }

// Drops is the number of replies DropReply has discarded so far.
func (p *Proxy) Drops() int64 { return p.drops.Load() }

// SetMode switches the proxy to m. Refuse and Reset reset the open
// connections at once.
func (p *Proxy) SetMode(m Mode) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode.Store(int32(m))
	switch m {
	case Refuse:
		if p.ln != nil {
			_ = p.ln.Close()
			p.ln = nil
		}
		p.resetAll()
	case Reset:
		p.resetAll()
	}
	if m != Refuse && p.ln == nil && !p.done {
		ln, err := net.Listen("tcp", p.addr)
		if err != nil {
			return err
		}
		p.ln = ln
		go p.accept(ln)
	}
	return nil
}

// Close stops the proxy and resets every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	p.resetAll()
}

func (p *Proxy) resetAll() {
	for c := range p.conns {
		c.reset()
		delete(p.conns, c)
	}
}

// reset closes both ends with an RST (linger 0), not a FIN.
func (c *pair) reset() {
	_ = c.client.SetLinger(0)
	_ = c.client.Close()
	if c.server != nil {
		_ = c.server.SetLinger(0)
		_ = c.server.Close()
	}
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c.(*net.TCPConn))
	}
}

func (p *Proxy) serve(client *net.TCPConn) {
	c := &pair{client: client}
	if Mode(p.mode.Load()) == Reset || Mode(p.mode.Load()) == Refuse {
		c.reset()
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.reset()
		return
	}
	c.server = s.(*net.TCPConn)
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		c.reset()
		return
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	go p.pump(c, c.client, c.server, false)
	p.pump(c, c.server, c.client, true)
}

// pump copies from src to dst, applying the mode to each chunk; reply says
// src is the server.
func (p *Proxy) pump(c *pair, src, dst *net.TCPConn, reply bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			switch Mode(p.mode.Load()) {
			case Pass:
				if _, werr := dst.Write(buf[:n]); werr != nil {
					p.drop(c)
					return
				}
			case DropReply:
				if reply && p.mode.CompareAndSwap(int32(DropReply), int32(Pass)) {
					p.drops.Add(1)
					p.drop(c)
					return
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					p.drop(c)
					return
				}
			case DropReplyThenRefuse:
				if reply && p.mode.CompareAndSwap(int32(DropReplyThenRefuse), int32(Refuse)) {
					p.drops.Add(1)
					p.mu.Lock()
					if p.ln != nil { // refuse first, so that no retry can connect
						_ = p.ln.Close()
						p.ln = nil
					}
					p.resetAll()
					p.mu.Unlock()
					return
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					p.drop(c)
					return
				}
			case Blackhole:
				// discarded: the other side waits
			default:
				p.drop(c)
				return
			}
		}
		if err != nil { // EOF or a reset: the other side goes too
			p.drop(c)
			return
		}
	}
}

func (p *Proxy) drop(c *pair) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.reset()
}
