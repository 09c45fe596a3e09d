package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Encode returns the canonical bytes of c's case file: object keys sorted as
// encoding/json sorts map keys, two-space indent, no HTML escaping, a
// trailing newline. Equal cases encode to equal bytes.
//
// spec VEC-13: "the generator writes files deterministically (object keys sorted, two-space indent, a trailing newline)"
func Encode(c Case) ([]byte, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("conformance: encode %s: %w", c.ID, err)
	}
	var tree any // maps sort their keys when encoded
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("conformance: encode %s: %w", c.ID, err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return nil, fmt.Errorf("conformance: encode %s: %w", c.ID, err)
	}
	return b.Bytes(), nil
}
