package conformance_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/limcheck/limcheck/conformance"
)

// The loader refuses every broken file with an error naming the file and
// what is wrong (VEC-1..VEC-11).
func TestLoadRefusesBrokenFiles(t *testing.T) {
	for _, b := range brokenFiles() {
		if b.clause == "" || b.reason == "" {
			t.Fatalf("broken file %+v: every row needs a clause and a reason", b)
		}
		data := []byte(b.raw)
		if b.raw == "" {
			m := baseCase(t)
			b.edit(m)
			data = marshal(t, m)
		}
		p := cmpOr(b.path, basePath)
		_, err := conformance.Load(folder(p, data))
		switch {
		case err == nil:
			t.Errorf("%s: Load(%s: %s) = no error, want one containing %q", b.clause, p, b.reason, b.loader)
		case !strings.Contains(err.Error(), b.loader) || !strings.Contains(err.Error(), p):
			t.Errorf("%s: Load(%s: %s) error %q, want it to name %s and contain %q", b.clause, p, b.reason, err, p, b.loader)
		case !errors.Is(err, conformance.ErrInvalid):
			t.Errorf("%s: Load(%s: %s) error %q does not wrap ErrInvalid", b.clause, p, b.reason, err)
		}
	}
}

// VEC-8: readers ignore unknown keys, at every level; VEC-7: a byte string
// in hex reads as the same bytes as the plain string.
func TestLoadAcceptsWhatReadersMust(t *testing.T) {
	rows := []struct {
		clause, reason string
		edit           func(m map[string]any)
	}{
		{"VEC-8", "unknown keys at the top, in an op and in its expect", func(m map[string]any) {
			m["x-note"] = "ignored"
			firstOp(m)["x-note"] = map[string]any{"nested": []any{1, 2}}
			firstOp(m)["expect"].(map[string]any)["x-note"] = true
		}},
	}
	want, _ := conformance.Load(folder(basePath, marshal(t, baseCase(t))))
	for _, r := range rows {
		m := baseCase(t)
		r.edit(m)
		got, err := conformance.Load(folder(basePath, marshal(t, m)))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Load(%s) = %v, %v; want the base case", r.clause, r.reason, got, err)
		}
	}
	hexIP := `{"op": "lim_ip_key", "ip": {"hex": "61"}, "expect": {"key": "97"}}`
	plain := `{"op": "lim_ip_key", "ip": "a", "expect": {"key": "97"}}`
	if a, b := ipCase(t, hexIP), ipCase(t, plain); !reflect.DeepEqual(a, b) {
		t.Errorf("VEC-7: the case with ip {\"hex\": \"61\"} = %+v, want the one with ip \"a\" = %+v", a, b)
	}
}

// ipCase loads the base case with op as its only op.
func ipCase(t *testing.T, op string) conformance.Case {
	t.Helper()
	data := strings.Replace(string(marshal(t, baseCase(t))), `"ops":[`, `"ops":[`+op+`,`, 1)
	c, err := conformance.Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse(%s) error: %v", op, err)
	}
	return c
}

// VEC-3: two files with one ID are refused; VEC-1: so is a folder that
// names no component.
func TestLoadRefusesBadFolders(t *testing.T) {
	data := marshal(t, baseCase(t))
	rows := []struct {
		clause, reason, want string
		fsys                 fstest.MapFS
	}{
		{"VEC-3", "two files with one ID", `id "lim-vec-001" is also the id of`, fstest.MapFS{
			basePath: {Data: data}, "throttle/lim-vec-001.json": {Data: data}}},
		{"VEC-1", "a folder that is not a component", `"bucket" is not a component`, fstest.MapFS{
			"bucket/x.json": {Data: data}}},
	}
	for _, r := range rows {
		if _, err := conformance.Load(r.fsys); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: Load(%s) error %v, want one containing %q", r.clause, r.reason, err, r.want)
		}
	}
}

func cmpOr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
