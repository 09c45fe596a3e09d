package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/limcheck/limcheck/oracle"
)

// members reads the JSON object raw into its members by exact,
// case-sensitive name. A key written twice, a value that is not JSON, or
// anything after the object is an error; raw that is not an object is
// errNotObject.
//
// spec PROTO-6: "Reply keys are case-sensitive and none appears twice in one object"
func members(raw []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	m := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string) // an object's key is always a string
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("the key %q appears twice", k)
		}
		m[k] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the object")
	}
	return m, nil
}

// errNotObject is members' error for a value that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// member decodes the member name of m into v. A member that is absent or
// null is an error naming it; so is one of another type.
func member(m map[string]json.RawMessage, name string, v any) error {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return fmt.Errorf("%q is missing", name)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%q: %v", name, err)
	}
	return nil
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
	if err != nil && len(err.Error()) > maxDecodeError {
		return errors.New(CutText(err.Error(), maxDecodeError))
	}
	return err
}

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
	return json.Unmarshal(raw, r)
}
