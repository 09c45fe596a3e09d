package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// reply is a decoded reply line.
type reply struct {
	seq     int64
	kind    replyKind
	result  oracle.Result
	text    string // skipped's reason or fault's message
	badJSON error  // result is an object whose fields do not decode
}

type replyKind uint8

const (
	replyResult replyKind = iota
	replySkipped
	replyFault
)

// decodeReply decodes a reply line. A line that is not a reply object is
// an error; a result object whose fields do not decode is a reply with
// badJSON set (the case fails, the port has not broken the protocol).
//
// spec PROTO-6: "A reply has the seq of its request and exactly one of: result ... skipped ... or fault"
func decodeReply(line []byte) (reply, error) {
	if r, ok := decodeReplyFast(line); ok {
		return r, nil
	}
	return decodeReplySlow(line)
}

// decodeReplySlow is decodeReply through encoding/json: the definition
// decodeReplyFast must agree with.
func decodeReplySlow(line []byte) (reply, error) {
	m, err := members(bytes.TrimRight(line, "\r"))
	if err != nil {
		return reply{}, err
	}
	var r reply
	if err := member(m, "seq", &r.seq); err != nil {
		return reply{}, err
	}
	res, hasRes := m["result"]
	_, hasSkip := m["skipped"]
	_, hasFault := m["fault"]
	has := 0
	for _, set := range []bool{hasRes, hasSkip, hasFault} {
		if set {
			has++
		}
	}
	if has != 1 {
		return reply{}, fmt.Errorf(`it has %d of "result", "skipped", "fault", want exactly 1`, has)
	}
	switch {
	case hasSkip:
		r.kind = replySkipped
		err = member(m, "skipped", &r.text)
	case hasFault:
		r.kind = replyFault
		err = member(m, "fault", &r.text)
	default:
		if t := bytes.TrimSpace(res); len(t) == 0 || t[0] != '{' {
			return reply{}, errors.New(`"result" is not an object`)
		}
		r.badJSON = decodeResult(res, &r.result)
	}
	if err != nil {
		return reply{}, err
	}
	return r, nil
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
		switch string(k) { // a key seen twice is the slow path's to diagnose
		case "seq":
			seqVal, ok = s.int()
			ok, seq = ok && !seq, true
		case "result":
			r.result = oracle.Result{}
			ok = s.result(&r.result) && !res
			res, resultOK = true, ok
		case "skipped":
			text, ok = s.str()
			ok, skip = ok && !skip, true
		case "fault":
			text, ok = s.str()
			ok, flt = ok && !flt, true
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

// resultNames are the field names of a result object, for result's check
// that none comes twice.
var resultNames = [...]string{"ok", "err", "cap", "refil", "ivl", "maxif", "retry", "tks", "last", "n",
	"key", "set", "way", "retry_after", "remaining", "until", "count", "response", "verdict", "error", "touched"}

// result reads a result object whose values are all decimal strings,
// plain strings and booleans, each field at most once.
func (s *scanner) result(r *oracle.Result) bool {
	var seen uint32
	return s.object(func(k []byte) bool {
		if !firstTime(&seen, k) {
			return false
		}
		if n := resultNum(r, k); n != nil {
			return s.num(n)
		}
		return s.resultField(r, k)
	})
}

// firstTime records in seen that the result field k came; false when it
// came before.
func firstTime(seen *uint32, k []byte) bool {
	for i, name := range resultNames {
		if string(k) == name {
			if *seen&(1<<i) != 0 {
				return false
			}
			*seen |= 1 << i
			break
		}
	}
	return true
}

// resultNum returns the Num field of r that key k names; nil when k names
// no Num field.
func resultNum(r *oracle.Result, k []byte) *oracle.Num {
	switch string(k) {
	case "ok":
		return &r.OK
	case "err":
		return &r.Err
	case "cap":
		return &r.Cap
	case "refil":
		return &r.Refil
	case "ivl":
		return &r.Ivl
	case "maxif":
		return &r.Maxif
	case "retry":
		return &r.Retry
	case "tks":
		return &r.Tks
	case "last":
		return &r.Last
	case "n":
		return &r.N
	case "key":
		return &r.Key
	case "set":
		return &r.Set
	case "way":
		return &r.Way
	case "retry_after":
		return &r.RetryAfter
	case "remaining":
		return &r.Remaining
	case "until":
		return &r.Until
	case "count":
		return &r.Count
	}
	return nil
}

// resultField reads the value of r's field that key k names, but a Num
// (resultNum); false for a key no result has.
func (s *scanner) resultField(r *oracle.Result, k []byte) bool {
	switch string(k) {
	case "response":
		v, ok := s.str()
		b := oracle.Bytes(v)
		r.Response = &b
		return ok
	case "verdict":
		v, ok := s.str()
		r.Verdict = interned(v)
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
}

// decodeHello reads a hello line: every field present, by its exact name,
// none twice.
//
// spec PROTO-2: "limcheck refuses a hello with another protocol, a missing or ill-typed field (version included), a key written twice"
func decodeHello(line []byte) (Hello, error) {
	m, err := members(bytes.TrimRight(line, "\r"))
	if err != nil {
		return Hello{}, err
	}
	var h Hello
	for _, f := range []struct {
		name string
		v    any
	}{{"protocol", &h.Protocol}, {"name", &h.Name}, {"version", &h.Version}, {"components", &h.Components}} {
		if err := member(m, f.name, f.v); err != nil {
			return Hello{}, err
		}
	}
	return h, nil
}

// resultFields is the set of a result object's field names: the JSON
// names of oracle.Result's fields.
var resultFields = func() map[string]bool {
	fields := map[string]bool{}
	t := reflect.TypeFor[oracle.Result]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	return fields
}()

// decodeResult decodes a result object. Its fields are matched by exact
// name: a field no result has (whatever its case) or one written twice is
// an error, which fails the op.
//
// spec VEC-10: "a field under any other name, in any other case, is a field expect lacks and fails the op"
//
// Its error quotes at most maxDecodeError bytes: a port may write a field
// name, an integer or a number of 1 MiB, which the error of every failing
// case would otherwise carry whole.
func decodeResult(raw json.RawMessage, r *oracle.Result) error {
	err := decodeResultFields(raw, r)
	var fe *FieldError
	if errors.As(err, &fe) {
		fe.Value = judge.CutText(fe.Value, maxQuotedValue)
		if len(fe.Err.Error()) > maxDecodeError/2 {
			fe.Err = errors.New(judge.CutText(fe.Err.Error(), maxDecodeError/2))
		}
		return fe
	}
	if err != nil && len(err.Error()) > maxDecodeError {
		return errors.New(judge.CutText(err.Error(), maxDecodeError))
	}
	return err
}

// maxQuotedValue is the most bytes of a value that does not fit its field
// a FieldError keeps.
const maxQuotedValue = 48

// maxDecodeError is the most bytes of a result's decode error a run keeps.
const maxDecodeError = 512

// decodeResultFields is decodeResult, its error whole.
func decodeResultFields(raw json.RawMessage, r *oracle.Result) error {
	m, err := members(raw)
	if err != nil {
		return err
	}
	for k := range m {
		if !resultFields[k] {
			return fmt.Errorf("the field %q is no result field (names are case-sensitive)", k)
		}
	}
	if err := json.Unmarshal(raw, r); err != nil {
		return fieldError(m, err)
	}
	return nil
}

// FieldError is a result whose field holds a value that does not fit it
// (a uint64 field's value past 2^64-1): the field's JSON name, the value
// the port sent as JSON (cut to its first bytes), and why it does not
// fit.
type FieldError struct {
	Field, Value string
	Err          error
}

// Error is why the value does not fit, as the decoder says it (which
// quotes a bounded prefix of the value).
func (e *FieldError) Error() string { return e.Err.Error() }

// Unwrap is why the value does not fit.
func (e *FieldError) Unwrap() error { return e.Err }

// fieldError finds the member of m whose value does not decode into its
// field and returns a FieldError for it, or err when none alone fails.
func fieldError(m map[string]json.RawMessage, err error) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var r oracle.Result
		one, _ := json.Marshal(map[string]json.RawMessage{k: m[k]})
		if ferr := json.Unmarshal(one, &r); ferr != nil {
			return &FieldError{Field: k, Value: string(m[k]), Err: ferr}
		}
	}
	return err
}
