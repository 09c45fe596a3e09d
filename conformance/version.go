package conformance

import (
	"errors"
	"regexp"
)

var versionRE = regexp.MustCompile(`(?m)^Spec version: \*\*([^*\s]+)\*\*`)

// SpecVersion returns the version spec.md states on its version line
// ("Spec version: **1.0.0** (date)."), the value of every case's
// spec_version.
//
// spec VEC-2: "spec_version is the version of this document whose model computed the expectations"
func SpecVersion(spec []byte) (string, error) {
	m := versionRE.FindSubmatch(spec)
	if m == nil {
		return "", errors.New("conformance: spec.md has no line \"Spec version: **X**\"")
	}
	return string(m[1]), nil
}
