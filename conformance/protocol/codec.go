package protocol

import (
	"encoding/json"
	"strconv"

	"github.com/limcheck/limcheck/oracle"
)

// The protocol's hot path (PROTO-3, PROTO-5, PROTO-6): requests and replies
// of flat objects of decimal strings, written and read without reflection.
// Each fast function handles the common shapes only and says so; anything
// else (a nested value, an escape it does not know, a non-ASCII string, an
// unknown or odd key) goes to encoding/json, whose result is the
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
		b = append(appendField(b, `,"tick_nanos":"`, g.TickNanos), '}')
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
		ks, _ := json.Marshal(op.Keys) // Bytes always marshal
		b = append(b, `,"keys":`...)
		b = append(b, ks...)
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
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

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
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			if out == nil {
				return s.b[start:j], true
			}
			return out, true
		case c < 0x20 || c >= 0x80:
			return nil, false
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
	x, err := oracle.ParseNum(string(v))
	*n = x
	return err == nil
}

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

// decodeReplyFast reads a reply line of the common shape.
func decodeReplyFast(line []byte) (reply, bool) {
	var (
		r                   reply
		seq, res, skip, flt bool
		s                   = scanner{b: line}
		text                []byte
		seqVal              int64
		resultOK            bool
	)
	ok := s.object(func(k []byte) bool {
		var ok bool
		switch string(k) {
		case "seq":
			seqVal, ok = s.int()
			seq = true
		case "result":
			r.result = oracle.Result{}
			ok = s.result(&r.result)
			res, resultOK = true, ok
		case "skipped":
			text, ok = s.str()
			skip = true
		case "fault":
			text, ok = s.str()
			flt = true
		}
		return ok
	})
	if !ok || !s.end() || !seq || !resultOK && res {
		return reply{}, false
	}
	n := 0
	for _, set := range []bool{res, skip, flt} {
		if set {
			n++
		}
	}
	if n != 1 {
		return reply{}, false
	}
	r.seq = seqVal
	switch {
	case skip:
		r.kind, r.text = replySkipped, string(text)
	case flt:
		r.kind, r.text = replyFault, string(text)
	}
	return r, true
}

// result reads a result object whose values are all decimal strings,
// plain strings and booleans.
func (s *scanner) result(r *oracle.Result) bool {
	return s.object(func(k []byte) bool {
		switch string(k) {
		case "ok":
			return s.num(&r.OK)
		case "err":
			return s.num(&r.Err)
		case "cap":
			return s.num(&r.Cap)
		case "refil":
			return s.num(&r.Refil)
		case "ivl":
			return s.num(&r.Ivl)
		case "maxif":
			return s.num(&r.Maxif)
		case "retry":
			return s.num(&r.Retry)
		case "tks":
			return s.num(&r.Tks)
		case "last":
			return s.num(&r.Last)
		case "n":
			return s.num(&r.N)
		case "key":
			return s.num(&r.Key)
		case "set":
			return s.num(&r.Set)
		case "way":
			return s.num(&r.Way)
		case "retry_after":
			return s.num(&r.RetryAfter)
		case "remaining":
			return s.num(&r.Remaining)
		case "until":
			return s.num(&r.Until)
		case "count":
			return s.num(&r.Count)
		case "response":
			v, ok := s.str()
			b := oracle.Bytes(v)
			r.Response = &b
			return ok
		case "verdict":
			v, ok := s.str()
			r.Verdict = string(v)
			return ok
		case "error":
			v, ok := s.str()
			r.Error = oracle.ErrorClass(v)
			return ok
		case "touched":
			v, ok := s.bool()
			r.Touched = &v
			return ok
		}
		return false
	})
}

// decodeRequestFast reads a request line of the common shape: keys and
// configs of plain strings, no faults.
func decodeRequestFast(line []byte) (wireRequest, bool) {
	var req wireRequest
	s := scanner{b: line}
	ok := s.object(func(k []byte) bool {
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
			req.Kind = oracle.Kind(v)
			return ok
		case "component":
			v, ok := s.str()
			req.Component = oracle.Component(v)
			return ok
		case "tks":
			return s.num(&req.Tks)
		case "last":
			return s.num(&req.Last)
		case "cap":
			return s.num(&req.Cap)
		case "refil":
			return s.num(&req.Refil)
		case "ivl":
			return s.num(&req.Ivl)
		case "maxif":
			return s.num(&req.Maxif)
		case "now":
			return s.num(&req.Now)
		case "cost":
			return s.num(&req.Cost)
		case "n":
			return s.num(&req.N)
		case "retry":
			return s.num(&req.Retry)
		case "ip":
			v, ok := s.str()
			b := oracle.Bytes(v)
			req.IP = &b
			return ok
		case "key":
			v, ok := s.str()
			b := oracle.Bytes(v)
			req.Key = &b
			return ok
		case "keys":
			req.Keys = []oracle.Bytes{} // [] is check_any of no key, not absent
			return s.array(func() bool {
				v, ok := s.str()
				req.Keys = append(req.Keys, oracle.Bytes(v))
				return ok
			})
		case "config":
			if req.Config == nil { // a repeated key fills the same config, as encoding/json does
				req.Config = &oracle.Config{}
			}
			return s.config(req.Config)
		}
		return false
	})
	if !ok || !s.end() {
		return wireRequest{}, false
	}
	return req, true
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
