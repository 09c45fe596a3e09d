package redistest

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// Swap is a TCP proxy on loopback between a client and a redis-server that
// makes the server run other Lua than the client asked for: a client's
// EVALSHA (or EVALSHA_RO) of the SHA-1 of a swapped script goes on as EVAL
// (EVAL_RO) of its replacement; every other command, and every reply,
// passes unchanged. It is how the tests run a planted bug in a Lua script
// (a mutant) under the unchanged Go code that calls it, with no knob in
// that code: the Go side keeps sending the SHA of the script it embeds.
type Swap struct {
	target string
	by     map[string][]byte // SHA-1 hex of the original -> the replacement
	swaps  atomic.Int64      // commands rewritten

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	errs  []error
	done  bool
}

// NewSwap starts a Swap to target (host:port) that replaces each key of
// scripts (a script's text, as its caller hashes it) by its value; t's
// cleanup closes it.
func NewSwap(t TB, target string, scripts map[string]string) *Swap {
	t.Helper()
	s := &Swap{target: target, by: map[string][]byte{}, conns: map[net.Conn]struct{}{}}
	for from, to := range scripts {
		sum := sha1.Sum([]byte(from))
		s.by[hex.EncodeToString(sum[:])] = []byte(to)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: swap listen: %v", err)
	}
	s.ln = ln
	go s.accept()
	t.Cleanup(s.Close)
	return s
}

// Addr is the address clients connect to.
func (s *Swap) Addr() string { return s.ln.Addr().String() }

// Swaps is the number of commands rewritten so far.
func (s *Swap) Swaps() int64 { return s.swaps.Load() }

// Err returns the first malformed command the proxy read from a client
// (the connection was then closed), or nil.
func (s *Swap) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) == 0 {
		return nil
	}
	return s.errs[0]
}

// Close stops the proxy and closes every connection.
func (s *Swap) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	_ = s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
		delete(s.conns, c)
	}
}

// track records c as open; false when the proxy is closed (c is closed).
func (s *Swap) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		_ = c.Close()
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Swap) untrack(cs ...net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(s.conns, c)
	}
}

func (s *Swap) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.serve(c)
	}
}

func (s *Swap) serve(client net.Conn) {
	if !s.track(client) {
		return
	}
	server, err := net.Dial("tcp", s.target)
	if err != nil || !s.track(server) {
		s.untrack(client)
		return
	}
	defer s.untrack(client, server)
	go func() {
		_, _ = io.Copy(client, server) // replies, byte for byte
		s.untrack(client, server)
	}()
	r, w := bufio.NewReader(client), bufio.NewWriter(server)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			if err != io.EOF && !s.closed() {
				s.mu.Lock()
				s.errs = append(s.errs, err)
				s.mu.Unlock()
			}
			return
		}
		writeCommand(w, s.rewrite(cmd))
		if r.Buffered() == 0 { // keep a pipeline together, flush at its end
			if w.Flush() != nil {
				return
			}
		}
	}
}

func (s *Swap) closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// rewrite turns EVALSHA sha (EVALSHA_RO sha) of a swapped script into EVAL
// (EVAL_RO) of its replacement, the keys and arguments unchanged.
func (s *Swap) rewrite(cmd [][]byte) [][]byte {
	if len(cmd) < 2 {
		return cmd
	}
	to, ok := s.by[string(bytes.ToLower(cmd[1]))]
	if !ok {
		return cmd
	}
	switch string(bytes.ToUpper(cmd[0])) {
	case "EVALSHA":
		cmd[0] = []byte("EVAL")
	case "EVALSHA_RO":
		cmd[0] = []byte("EVAL_RO")
	default:
		return cmd
	}
	s.swaps.Add(1)
	cmd[1] = to
	return cmd
}

// readCommand reads one client command: a RESP array of bulk strings (the
// only form a client library sends; inline commands are refused).
func readCommand(r *bufio.Reader) ([][]byte, error) {
	n, err := readHeader(r, '*')
	if err != nil {
		return nil, err
	}
	cmd := make([][]byte, n)
	for i := range cmd {
		m, err := readHeader(r, '$')
		if err != nil {
			return nil, err
		}
		b := make([]byte, m+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		if !bytes.HasSuffix(b, []byte("\r\n")) {
			return nil, fmt.Errorf("redistest: swap: bulk string of %d bytes not ended by CRLF", m)
		}
		cmd[i] = b[:m]
	}
	return cmd, nil
}

// readHeader reads a line "<kind><n>\r\n" and returns n (0..2^30).
func readHeader(r *bufio.Reader, kind byte) (int, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if err == io.EOF && len(line) == 0 && kind == '*' {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("redistest: swap: reading a command: %w", err)
	}
	if len(line) < 4 || line[0] != kind || line[len(line)-2] != '\r' {
		return 0, fmt.Errorf("redistest: swap: want a %q header, got %q", kind, line)
	}
	n, err := strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("redistest: swap: bad length in %q", line)
	}
	return n, nil
}

func writeCommand(w *bufio.Writer, cmd [][]byte) {
	fmt.Fprintf(w, "*%d\r\n", len(cmd))
	for _, a := range cmd {
		fmt.Fprintf(w, "$%d\r\n", len(a))
		_, _ = w.Write(a)
		_, _ = w.WriteString("\r\n")
	}
}
