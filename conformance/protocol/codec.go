package protocol

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// The protocol's hot path (PROTO-3, PROTO-5, PROTO-6): requests and replies
// of flat objects of decimal strings, written and read without reflection.
// Each fast function handles the common shapes only and says so; anything
// else (a nested value, an escape it does not know, a string that is not
// valid UTF-8, an unknown, odd or repeated key) goes to encoding/json, whose result is the
// definition: codec_test.go checks that both paths agree.

// appendRequestLine appends the request for op of t (-1 open, len(ops)
// close) as seq and inst, as json.Marshal of a wireRequest writes it.
func appendRequestLine(b []byte, seq, inst int64, t *oracle.Trace, op int) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"inst":`...)
	b = strconv.AppendInt(b, inst, 10)
	switch {
	case op == -1:
		b = append(b, `,"component":`...)
		b = appendString(b, string(t.Component))
		if t.Component != oracle.Lim {
			b = appendConfig(append(b, `,"config":`...), &t.Config)
		}
		b = append(b, `,"op":"open"`...)
	case op == len(t.Ops):
		b = append(b, `,"op":"close"`...)
	default:
		b = appendOpFields(b, &t.Ops[op])
	}
	return append(b, '}', '\n')
}

// appendConfig appends c as json.Marshal writes it (an open per trace;
// encoding/json's reflection was a tenth of the fuzzer's encoding).
func appendConfig(b []byte, c *oracle.Config) []byte {
	b = append(b, '{')
	if g := c.Gate; g != nil {
		b = appendField(b, `"gate":{"cap":"`, g.Cap)
		b = appendField(b, `,"refil":"`, g.Refil)
		b = appendField(b, `,"ivl":"`, g.Ivl)
		b = appendField(b, `,"maxif":"`, g.Maxif)
		b = appendField(b, `,"sets":"`, g.Sets)
		b = appendField(b, `,"ways":"`, g.Ways)
		b = appendField(b, `,"tick_nanos":"`, g.TickNanos)
		if g.Seed != "" {
			b = appendString(append(b, `,"seed":`...), g.Seed)
		}
		b = append(b, '}')
	}
	if th := c.Throttle; th != nil {
		if c.Gate != nil {
			b = append(b, ',')
		}
		b = appendField(b, `"throttle":{"threshold":"`, th.Threshold)
		b = appendField(b, `,"window_secs":"`, th.WindowSecs)
		b = append(appendField(b, `,"ban_secs":"`, th.BanSecs), '}')
	}
	return append(b, '}')
}

// appendField appends prefix and n as Num's MarshalJSON writes it, after
// its opening quote ("absent" when unset).
func appendField(b []byte, prefix string, n oracle.Num) []byte {
	b, _ = n.AppendText(append(b, prefix...)) // never fails
	return append(b, '"')
}

// appendOpFields appends ,"op":... and op's set fields in Op's order.
func appendOpFields(b []byte, op *oracle.Op) []byte {
	b = append(b, `,"op":`...)
	b = appendString(b, string(op.Kind))
	b = appendNum(b, `,"tks":"`, op.Tks)
	b = appendNum(b, `,"last":"`, op.Last)
	b = appendNum(b, `,"cap":"`, op.Cap)
	b = appendNum(b, `,"refil":"`, op.Refil)
	b = appendNum(b, `,"ivl":"`, op.Ivl)
	b = appendNum(b, `,"maxif":"`, op.Maxif)
	b = appendNum(b, `,"now":"`, op.Now)
	b = appendNum(b, `,"cost":"`, op.Cost)
	b = appendNum(b, `,"n":"`, op.N)
	b = appendNum(b, `,"retry":"`, op.Retry)
	if op.IP != nil {
		b = append(b, `,"ip":`...)
		b = appendBytes(b, *op.IP)
	}
	if op.Key != nil {
		b = append(b, `,"key":`...)
		b = appendBytes(b, *op.Key)
	}
	if op.Keys != nil {
		b = append(b, `,"keys":[`...)
		for i, k := range op.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBytes(b, k)
		}
		b = append(b, ']')
	}
	if op.Faults != nil {
		fs, _ := json.Marshal(op.Faults)
		b = append(b, `,"faults":`...)
		b = append(b, fs...)
	}
	return b
}

// appendResultObject appends r as json.Marshal writes it.
func appendResultObject(b []byte, r *oracle.Result) []byte {
	start := len(b)
	b = appendNum(b, `,"ok":"`, r.OK)
	b = appendNum(b, `,"err":"`, r.Err)
	b = appendNum(b, `,"cap":"`, r.Cap)
	b = appendNum(b, `,"refil":"`, r.Refil)
	b = appendNum(b, `,"ivl":"`, r.Ivl)
	b = appendNum(b, `,"maxif":"`, r.Maxif)
	b = appendNum(b, `,"retry":"`, r.Retry)
	b = appendNum(b, `,"tks":"`, r.Tks)
	b = appendNum(b, `,"last":"`, r.Last)
	b = appendNum(b, `,"n":"`, r.N)
	b = appendNum(b, `,"key":"`, r.Key)
	if r.Response != nil {
		b = append(b, `,"response":`...)
		b = appendBytes(b, *r.Response)
	}
	if r.Verdict != "" {
		b = append(b, `,"verdict":`...)
		b = appendString(b, r.Verdict)
	}
	b = appendNum(b, `,"set":"`, r.Set)
	b = appendNum(b, `,"way":"`, r.Way)
	b = appendNum(b, `,"retry_after":"`, r.RetryAfter)
	if r.Touched != nil {
		b = append(b, `,"touched":`...)
		b = strconv.AppendBool(b, *r.Touched)
	}
	b = appendNum(b, `,"remaining":"`, r.Remaining)
	b = appendNum(b, `,"until":"`, r.Until)
	b = appendNum(b, `,"count":"`, r.Count)
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, string(r.Error))
	}
	if len(b) == start {
		return append(b, '{', '}')
	}
	b[start] = '{'
	return append(b, '}')
}

// appendNum appends prefix (`,"name":"`), n and the closing quote when n
// is set.
func appendNum(b []byte, prefix string, n oracle.Num) []byte {
	if n.IsZero() {
		return b
	}
	b = append(b, prefix...)
	b, _ = n.AppendText(b) // never fails
	return append(b, '"')
}

// plain reports whether json.Marshal writes s as itself between quotes:
// printable ASCII without '"', '\\' and the HTML characters it escapes.
func plain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // 8 bytes at a time: keys run to 901 bytes
		w := word(s[i:])
		if hasLess(w, 0x20)|hasByte(w, '"')|hasByte(w, '\\')|hasByte(w, '<')|hasByte(w, '>')|hasByte(w, '&')|hasAtLeast(w, 0x7f) != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// The SWAR tests of 8 bytes at once (each sets the top bit of some byte,
// not always the first match's, exactly when some byte matches): word
// reads the first 8 bytes of s, little-endian.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func word[S ~string | ~[]byte](s S) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hasLess is nonzero when some byte of w is below n (n <= 0x80).
func hasLess(w, n uint64) uint64 { return (w - lsb*n) &^ w & msb }

// hasByte is nonzero when some byte of w is c.
func hasByte(w, c uint64) uint64 { return hasLess(w^(lsb*c), 1) }

// hasAtLeast is nonzero when some byte of w is n or more (n >= 0x7f: a
// carry out of a byte happens only from 0xff, itself a match).
func hasAtLeast(w, n uint64) uint64 { return ((w + lsb*(0x80-n)) | w) & msb }

func appendString(b []byte, s string) []byte {
	if plain(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func appendBytes(b []byte, v oracle.Bytes) []byte {
	if plain(string(v)) {
		return appendString(b, string(v))
	}
	q, _ := v.MarshalJSON() // Bytes always marshal
	return append(b, q...)
}

// scanner reads the flat JSON objects of the hot path; ok false means
// "not a shape I read": the caller falls back to encoding/json.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// is consumes c (after white space) if it is next.
func (s *scanner) is(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// str reads a string of ASCII whose escapes are the simple ones and
// \u00XX below 0x80. It returns the unescaped bytes; they alias the
// input when there was no escape.
func (s *scanner) str() ([]byte, bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	var out []byte // nil until the first escape
	high := false  // a byte >= 0x80 was read: the string must be valid UTF-8
	j := start
	for ; j+8 <= len(s.b); j += 8 { // skip 8 plain bytes at a time
		if w := word(s.b[j : j+8]); hasLess(w, 0x20)|hasByte(w, '"')|hasByte(w, '\\')|w&msb != 0 {
			break
		}
	}
	for ; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			v := out
			if v == nil {
				v = s.b[start:j]
			}
			if high && !utf8.Valid(v) { // encoding/json would write U+FFFD for it
				return nil, false
			}
			s.i = j + 1
			return v, true
		case c < 0x20:
			return nil, false
		case c >= 0x80:
			high = true
			if out != nil {
				out = append(out, c)
			}
		case c == '\\':
			if out == nil {
				out = append([]byte(nil), s.b[start:j]...)
			}
			r, n, ok := unescape(s.b[j:])
			if !ok {
				return nil, false
			}
			out = append(out, r)
			j += n - 1
		case out != nil:
			out = append(out, c)
		}
	}
	return nil, false
}

// unescape decodes the escape at the start of b (b[0] == '\\') into one
// ASCII byte and its length.
func unescape(b []byte) (byte, int, bool) {
	if len(b) < 2 {
		return 0, 0, false
	}
	switch b[1] {
	case '"', '\\', '/':
		return b[1], 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		if len(b) < 6 || b[2] != '0' || b[3] != '0' {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(string(b[4:6]), 16, 8)
		if err != nil || v >= 0x80 {
			return 0, 0, false
		}
		return byte(v), 6, true
	}
	return 0, 0, false
}

// bytes reads an oracle.Bytes as its UnmarshalJSON reads the two forms
// MarshalJSON writes: a string, or exactly {"hex":"..."}.
func (s *scanner) bytes() (oracle.Bytes, bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		v, ok := s.str()
		return oracle.Bytes(v), ok
	}
	var h []byte
	seen := false
	ok := s.object(func(k []byte) bool {
		if string(k) != "hex" || seen {
			return false
		}
		seen = true
		var ok bool
		h, ok = s.str()
		return ok
	})
	if !ok || !seen {
		return "", false
	}
	raw := make([]byte, hex.DecodedLen(len(h)))
	if _, err := hex.Decode(raw, h); err != nil {
		return "", false
	}
	return oracle.Bytes(raw), true
}

// faults reads a set_faults rule list: an array of objects with "op" and,
// optionally, "keys", each at most once.
func (s *scanner) faults() ([]oracle.Fault, bool) {
	fs := []oracle.Fault{} // [] is no faults, not absent
	ok := s.array(func() bool {
		var f oracle.Fault
		op, keys := false, false
		ok := s.object(func(k []byte) bool {
			switch {
			case string(k) == "op" && !op:
				op = true
				v, ok := s.str()
				f.Op = string(v)
				return ok
			case string(k) == "keys" && !keys:
				keys = true
				f.Keys = []oracle.Bytes{}
				return s.array(func() bool {
					v, ok := s.bytes()
					f.Keys = append(f.Keys, v)
					return ok
				})
			}
			return false
		})
		fs = append(fs, f)
		return ok
	})
	return fs, ok
}

// int reads a JSON integer that fits an int64.
func (s *scanner) int() (int64, bool) {
	s.ws()
	j := s.i
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		j++
	}
	if j == digits || (s.b[digits] == '0' && j-digits > 1) || (j < len(s.b) && (s.b[j] == '.' || s.b[j] == 'e' || s.b[j] == 'E')) {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s.b[s.i:j]), 10, 64)
	if err != nil {
		return 0, false
	}
	s.i = j
	return v, true
}

// bool reads true or false.
func (s *scanner) bool() (bool, bool) {
	s.ws()
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// num reads a Num written as a decimal string.
func (s *scanner) num(n *oracle.Num) bool {
	v, ok := s.str()
	if !ok {
		return false
	}
	if x, ok := canonical(v); ok {
		*n = x
		return true
	}
	x, err := oracle.ParseNum(string(v)) // the definition, for anything else
	*n = x
	return err == nil
}

// canonical reads the common form of a Num, as oracle.ParseNum does but
// without a string: an optional '-', then 1 to 20 digits, no leading zero,
// in range, and not "-0". It reports false for anything else (ParseNum
// then decides).
func canonical(v []byte) (oracle.Num, bool) {
	digits := v
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || len(digits) > 20 || len(digits) > 1 && digits[0] == '0' {
		return oracle.Num{}, false
	}
	var abs uint64
	for _, c := range digits {
		d := uint64(c - '0')
		if c < '0' || c > '9' || abs > (math.MaxUint64-d)/10 {
			return oracle.Num{}, false
		}
		abs = abs*10 + d
	}
	switch {
	case !neg:
		return oracle.U(abs), true
	case abs == 0 || abs > 1<<63:
		return oracle.Num{}, false
	case abs == 1<<63:
		return oracle.I(math.MinInt64), true
	}
	return oracle.I(-int64(abs)), true
}

// interned returns the string of v, without allocating when it is one of
// the protocol's words (a kind, a component, a verdict).
func interned(v []byte) string {
	if w, ok := words[string(v)]; ok {
		return w
	}
	return string(v)
}

// words are the protocol's words interned reads without allocating.
var words = func() map[string]string {
	m := map[string]string{}
	add := func(w string) { m[w] = w }
	for _, c := range oracle.Components() {
		add(string(c))
		for _, k := range gen.NewOps(c, oracle.Config{}).Kinds() {
			add(string(k))
		}
	}
	for _, w := range []string{string(kindOpen), string(kindClose), oracle.VerdictPass, oracle.VerdictShed, oracle.VerdictLimited,
		oracle.VerdictAllow, oracle.VerdictBanned, oracle.VerdictUnavailable} {
		add(w)
	}
	return m
}()

// object reads a flat object, calling field for each key; field reads the
// value and reports whether it could.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.is('{') {
		return false
	}
	if s.is('}') {
		return true
	}
	for {
		k, ok := s.str()
		if !ok || !s.is(':') || !field(k) {
			return false
		}
		if s.is(',') {
			continue
		}
		return s.is('}')
	}
}

// decodeRequestFast reads a request line of the common shape: keys and
// configs of plain strings, no faults.
func decodeRequestFast(line []byte) (wireRequest, bool) {
	var req wireRequest
	s := scanner{b: line}
	ok := s.object(func(k []byte) bool {
		if n := opNum(&req.Op, k); n != nil {
			return s.num(n)
		}
		return s.requestField(&req, k)
	})
	if !ok || !s.end() {
		return wireRequest{}, false
	}
	return req, true
}

// opNum returns the Num field of op that key k names; nil when k names
// no Num field.
func opNum(op *oracle.Op, k []byte) *oracle.Num {
	switch string(k) {
	case "tks":
		return &op.Tks
	case "last":
		return &op.Last
	case "cap":
		return &op.Cap
	case "refil":
		return &op.Refil
	case "ivl":
		return &op.Ivl
	case "maxif":
		return &op.Maxif
	case "now":
		return &op.Now
	case "cost":
		return &op.Cost
	case "n":
		return &op.N
	case "retry":
		return &op.Retry
	}
	return nil
}

// requestField reads the value of req's field that key k names, but a
// Num field of its op (opNum); false for a key no request has.
func (s *scanner) requestField(req *wireRequest, k []byte) bool {
	switch string(k) {
	case "seq":
		v, ok := s.int()
		req.Seq = v
		return ok
	case "inst":
		v, ok := s.int()
		req.Inst = v
		return ok
	case "op":
		v, ok := s.str()
		req.Kind = oracle.Kind(interned(v))
		return ok
	case "component":
		v, ok := s.str()
		req.Component = oracle.Component(interned(v))
		return ok
	case "ip":
		b, ok := s.bytes()
		req.IP = &b
		return ok
	case "key":
		b, ok := s.bytes()
		req.Key = &b
		return ok
	case "keys":
		req.Keys = []oracle.Bytes{} // [] is check_any of no key, not absent
		return s.array(func() bool {
			v, ok := s.bytes()
			req.Keys = append(req.Keys, v)
			return ok
		})
	case "faults":
		if req.Faults != nil { // repeated: encoding/json decodes into the first's rules
			return false
		}
		var ok bool
		req.Faults, ok = s.faults()
		return ok
	case "config":
		if req.Config == nil { // a repeated key fills the same config, as encoding/json does
			req.Config = &oracle.Config{}
		}
		return s.config(req.Config)
	}
	return false
}

// array reads an array, calling elem to read each element.
func (s *scanner) array(elem func() bool) bool {
	if !s.is('[') {
		return false
	}
	if s.is(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.is(',') {
			continue
		}
		return s.is(']')
	}
}

// config reads an open's config: a gate or a throttle config, or both.
func (s *scanner) config(c *oracle.Config) bool {
	return s.object(func(k []byte) bool {
		switch string(k) {
		case "gate":
			if c.Gate == nil {
				c.Gate = &oracle.GateConfig{}
			}
			return s.gateConfig(c.Gate)
		case "throttle":
			if c.Throttle == nil {
				c.Throttle = &oracle.ThrottleConfig{}
			}
			return s.throttleConfig(c.Throttle)
		}
		return false
	})
}

func (s *scanner) gateConfig(g *oracle.GateConfig) bool {
	return s.object(func(k []byte) bool {
		switch string(k) {
		case "cap":
			return s.num(&g.Cap)
		case "refil":
			return s.num(&g.Refil)
		case "ivl":
			return s.num(&g.Ivl)
		case "maxif":
			return s.num(&g.Maxif)
		case "sets":
			return s.num(&g.Sets)
		case "ways":
			return s.num(&g.Ways)
		case "tick_nanos":
			return s.num(&g.TickNanos)
		case "seed":
			v, ok := s.str()
			g.Seed = string(v)
			return ok
		}
		return false
	})
}

func (s *scanner) throttleConfig(t *oracle.ThrottleConfig) bool {
	return s.object(func(k []byte) bool {
		switch string(k) {
		case "threshold":
			return s.num(&t.Threshold)
		case "window_secs":
			return s.num(&t.WindowSecs)
		case "ban_secs":
			return s.num(&t.BanSecs)
		}
		return false
	})
}

// wireRequest is a request line as JSON: an op of the operations table
// with seq and inst, or open (with component and config) or close.
//
// spec PROTO-3: "Every request has seq, a JSON integer ... and op"
type wireRequest struct {
	Seq       int64            `json:"seq"`
	Inst      int64            `json:"inst"`
	Component oracle.Component `json:"component,omitempty"`
	Config    *oracle.Config   `json:"config,omitempty"`
	oracle.Op
}

// Request kinds beyond the operations table.
const (
	kindOpen  oracle.Kind = "open"
	kindClose oracle.Kind = "close"
)
