package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ReplyError is a Redis error reply ("-TRYAGAIN ..."), without its dash.
type ReplyError string

func (e ReplyError) Error() string { return "redistest: " + string(e) }

// Do sends one command to addr on a fresh connection and returns its reply:
// a string (a status or bulk string), an int64, nil (a null), a []any (an
// array, its elements alike), or an error (a [ReplyError] for an error
// reply). It waits at most 5 seconds.
func Do(addr string, args ...string) (any, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		return nil, err
	}
	return readReply(bufio.NewReader(c))
}

// Strings is Do for a reply that is an array of strings (or a null).
func Strings(addr string, args ...string) ([]string, error) {
	r, err := Do(addr, args...)
	if err != nil || r == nil {
		return nil, err
	}
	arr, ok := r.([]any)
	if !ok {
		return nil, fmt.Errorf("redistest: %s: reply %v is not an array", args[0], r)
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		if out[i], ok = e.(string); !ok {
			return nil, fmt.Errorf("redistest: %s: element %d, %v, is not a string", args[0], i, e)
		}
	}
	return out, nil
}

func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("redistest: empty reply line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return nil, ReplyError(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		arr := make([]any, n)
		for i := range arr {
			if arr[i], err = readReply(r); err != nil {
				return nil, err
			}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("redistest: unknown reply %q", line)
}
