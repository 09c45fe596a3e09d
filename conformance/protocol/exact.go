package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// strictObject decodes a JSON object line into v.
func strictObject(line []byte, v any) error {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 || bytes.TrimSpace(line)[0] != '{' {
		return errors.New("not a JSON object")
	}
	return json.Unmarshal(line, v)
}
