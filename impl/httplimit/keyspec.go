package httplimit

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"net/netip"
	"net/textproto"
	"strconv"
)

// MaxKeyBytes bounds a key built by a [Key]: a header's value, a context
// value, a pattern or a function's result longer than this is invalid, and
// so is a composite whose parts add up to more. A key is built in a
// 256-byte buffer on the stack: one longer than that costs an allocation.
const MaxKeyBytes = 1024

// Key says what a [Limiter] (through [WithKey]) or a [Policy] keys a
// request by, and what happens to a request whose key is missing or
// invalid. The zero Key is the client address (see Client keys in the
// package documentation). Build others with [HeaderKey], [ContextKey],
// [PatternKey], [FuncKey], [AddressKey] and [CompositeKey]; by default a
// request whose key is missing or invalid is keyed by its client address
// instead, and [Key.OrRefuse] refuses it. A Key is a value, safe to share.
type Key struct {
	parts     []keyPart
	refuse    int    // 0: fall back to the address; else 400 or 401
	challenge string // WWW-Authenticate of a 401
}

// keyPart is one part of a Key.
type keyPart struct {
	kind   keyKind
	header string // canonical header name
	max    int    // the header value's bound
	ctx    any
	fn     func(*http.Request) (string, bool)
}

// keyKind is what a keyPart reads.
type keyKind uint8

const (
	keyAddress keyKind = iota
	keyHeader
	keyContext
	keyPattern
	keyFunc
)

// AddressKey is the client address, canonicalised as the package
// documentation says: the zero Key, and a part for [CompositeKey].
func AddressKey() Key { return Key{parts: []keyPart{{kind: keyAddress}}} }

// HeaderKey keys a request by the value of header name, such as an API key.
// Normalisation: the one field line of name is taken as net/http read it
// (white space around it trimmed), byte for byte, case kept. It is invalid
// when the header is absent, has several lines, is empty, is longer than
// maxLen bytes, or holds a byte outside visible ASCII (0x21 to 0x7E: no
// space, control or non-ASCII byte). maxLen must be 1..[MaxKeyBytes]; New
// and NewPolicy refuse a Key built otherwise.
//
// The value is not checked against anything: a client can send any value,
// and each value has a bucket of its own. Key by a header only when the
// request is authenticated before the limiter sees it, or when a bucket per
// value is what is wanted (then choose OrRefuse, or the fallback to the
// address, for requests without one), and bound the values with a policy's
// table size: a client sending new values gets new buckets.
func HeaderKey(name string, maxLen int) Key {
	return Key{parts: []keyPart{{kind: keyHeader, header: textproto.CanonicalMIMEHeaderKey(name), max: maxLen}}}
}

// ContextKey keys a request by r.Context().Value(key), a value the
// service's own middleware put there (a user id, once authenticated). The
// value must be a non-empty string or []byte of at most [MaxKeyBytes] bytes,
// or an int, int64 or uint64 (its decimal); anything else, nil included, is
// invalid. Reading it allocates nothing.
func ContextKey(key any) Key { return Key{parts: []keyPart{{kind: keyContext, ctx: key}}} }

// PatternKey keys a request by the pattern of the route that matched it,
// r.Pattern, which http.ServeMux sets before it calls the route's handler
// (so only a [Policy] wrapped around a route's handler sees it); an empty
// pattern is invalid. With [CompositeKey](PatternKey(), AddressKey()) each
// address has a bucket per route.
func PatternKey() Key { return Key{parts: []keyPart{{kind: keyPattern}}} }

// FuncKey keys a request by f(r): f returns the key and true, or false
// when the request has none. For any router: with chi,
// chi.RouteContext(r.Context()).RoutePattern(). What f allocates is its
// own; a result over [MaxKeyBytes] bytes is invalid.
func FuncKey(f func(r *http.Request) (string, bool)) Key {
	return Key{parts: []keyPart{{kind: keyFunc, fn: f}}}
}

// CompositeKey keys a request by all of parts together, e.g. route and
// address: its key is every part's, each prefixed by its length, so that
// no two lists of parts spell the same key. It is invalid when one part
// is. The parts' own OrRefuse settings are ignored: set it on the result.
func CompositeKey(parts ...Key) Key {
	var k Key
	for _, p := range parts {
		if len(p.parts) == 0 {
			p = AddressKey()
		}
		k.parts = append(k.parts, p.parts...)
	}
	return k
}

// OrRefuse returns k refusing a request whose key is missing or invalid
// with status, 400 Bad Request or 401 Unauthorized (then challenge is the
// WWW-Authenticate value, which RFC 9110 requires on a 401, e.g. `ApiKey
// realm="api"`), without a bucket being read, instead of keying it by its
// address. New and NewPolicy refuse another status, and a 401 without a
// challenge.
func (k Key) OrRefuse(status int, challenge string) Key {
	k.refuse, k.challenge = status, challenge
	return k
}

// isAddress reports whether k is the client address alone.
func (k *Key) isAddress() bool {
	return len(k.parts) == 0 || len(k.parts) == 1 && k.parts[0].kind == keyAddress
}

// check returns an error wrapping ErrConfig when k is out of range.
func (k *Key) check() error {
	for _, p := range k.parts {
		switch {
		case p.kind == keyHeader && (p.max < 1 || p.max > MaxKeyBytes):
			return fmt.Errorf("%w: header key %s: length bound %d not in 1..%d", ErrConfig, p.header, p.max, MaxKeyBytes)
		case p.kind == keyHeader && p.header == "":
			return fmt.Errorf("%w: header key with no header name", ErrConfig)
		case p.kind == keyFunc && p.fn == nil:
			return fmt.Errorf("%w: FuncKey of a nil function", ErrConfig)
		case p.kind == keyContext && p.ctx == nil:
			return fmt.Errorf("%w: ContextKey of a nil key", ErrConfig)
		}
	}
	switch {
	case k.refuse == 0:
	case k.refuse != http.StatusBadRequest && k.refuse != http.StatusUnauthorized:
		return fmt.Errorf("%w: OrRefuse(%d): the status must be 400 or 401", ErrConfig, k.refuse)
	case k.refuse == http.StatusUnauthorized && k.challenge == "":
		return fmt.Errorf("%w: OrRefuse(401) with no challenge: a 401 must carry WWW-Authenticate (RFC 9110)", ErrConfig)
	}
	return nil
}

// appendKey appends the key k gives r to dst, a from keyer.client being
// r's client address (valid: it parsed), and reports false when a part is
// missing or invalid (dst is then to be dropped).
func (k *Key) appendKey(dst []byte, keys *keyer, r *http.Request, a netip.Addr, valid bool) ([]byte, bool) {
	if len(k.parts) == 0 {
		return keys.appendKeyOf(dst, a, valid), true
	}
	if len(k.parts) == 1 {
		return k.parts[0].appendPart(dst, keys, r, a, valid)
	}
	start := len(dst)
	for i := range k.parts {
		n := len(dst)
		dst = append(dst, 0, 0) // the part's length, filled in below
		var ok bool
		if dst, ok = k.parts[i].appendPart(dst, keys, r, a, valid); !ok || len(dst)-start > MaxKeyBytes+2*len(k.parts) {
			return dst, false
		}
		binary.BigEndian.PutUint16(dst[n:], uint16(len(dst)-n-2))
	}
	return dst, true
}

// appendPart appends p's part of r's key to dst.
func (p *keyPart) appendPart(dst []byte, keys *keyer, r *http.Request, a netip.Addr, valid bool) ([]byte, bool) {
	switch p.kind {
	case keyAddress:
		return keys.appendKeyOf(dst, a, valid), true // InvalidKey is a key of its own
	case keyHeader:
		vs := r.Header[p.header]
		if len(vs) != 1 || !visibleASCII(vs[0], p.max) {
			return dst, false
		}
		return append(dst, vs[0]...), true
	case keyContext:
		return appendValue(dst, r.Context().Value(p.ctx))
	case keyPattern:
		return appendText(dst, r.Pattern)
	}
	s, ok := p.fn(r)
	if !ok {
		return dst, false
	}
	return appendText(dst, s)
}

// visibleASCII reports whether s is 1..max bytes of 0x21..0x7E.
func visibleASCII(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// appendText appends s, which must be 1..MaxKeyBytes bytes.
func appendText(dst []byte, s string) ([]byte, bool) {
	if s == "" || len(s) > MaxKeyBytes {
		return dst, false
	}
	return append(dst, s...), true
}

// appendValue appends a context value of a type ContextKey takes.
func appendValue(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case string:
		return appendText(dst, v)
	case []byte:
		if len(v) == 0 || len(v) > MaxKeyBytes {
			return dst, false
		}
		return append(dst, v...), true
	case int:
		return strconv.AppendInt(dst, int64(v), 10), true
	case int64:
		return strconv.AppendInt(dst, v, 10), true
	case uint64:
		return strconv.AppendUint(dst, v, 10), true
	}
	return dst, false
}
