package conformance_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/limcheck/limcheck/conformance"
)

// VEC-1: input over a limit is refused with an error that names the file
// and the limit, before it can take the reader's memory: a case file over
// MaxFileSize, a case of more than MaxOps ops, a string over MaxString, a
// folder over MaxFolderSize or MaxFolderOps.
func TestLoadRefusesInputOverTheLimits(t *testing.T) {
	rows := []struct {
		clause, reason, file, want string
		fsys                       fstest.MapFS
	}{
		{"VEC-1", "a case file over 1 MiB", basePath, "bytes: over the limit of 1 MiB per case file",
			fstest.MapFS{basePath: {Data: padded(t, "lim-vec-001", 1<<20+1)}}},
		{"VEC-1", "a case of more than 10000 ops", basePath, "10001 ops: over the limit of 10000 per case",
			fstest.MapFS{basePath: {Data: withOps(t, "lim-vec-001", 10_001)}}},
		{"VEC-1", "a description over 1 KiB", basePath, "description: a string of 5000 bytes: over the limit of 1 KiB per string",
			fstest.MapFS{basePath: {Data: edited(t, func(m map[string]any) { m["description"] = strings.Repeat("d", 5000) })}}},
		{"VEC-1", "a byte string over 1 KiB", basePath, "op 0: a string of 1025 bytes: over the limit of 1 KiB per string",
			fstest.MapFS{basePath: {Data: edited(t, func(m map[string]any) { firstOp(m)["ip"] = strings.Repeat("i", 1025) })}}},
		{"VEC-1", "a folder over 64 MiB", "lim/lim-vec-065.json", "bytes: over the limit of 64 MiB per vectors folder",
			folderOf(t, 65, func(string) []byte { return mibOfJunk })},
		{"VEC-1", "a folder of more than 100000 ops", "lim/lim-vec-011.json", "have 110000 ops: over the limit of 100000 per vectors folder",
			folderOf(t, 11, func(id string) []byte { return withOps(t, id, 10_000) })},
	}
	for _, r := range rows {
		_, err := conformance.Load(r.fsys)
		switch {
		case err == nil:
			t.Errorf("%s: Load(%s) = no error, want one containing %q", r.clause, r.reason, r.want)
		case !strings.Contains(err.Error(), r.want) || !strings.Contains(err.Error(), r.file):
			t.Errorf("%s: Load(%s) error %q, want it to name %s and contain %q", r.clause, r.reason, err, r.file, r.want)
		case !errors.Is(err, conformance.ErrLimit):
			t.Errorf("%s: Load(%s) error %q does not match ErrLimit", r.clause, r.reason, err)
		}
	}
}

// VEC-1: a case file that is not a regular file is refused, not read.
func TestLoadRefusesWhatIsNotAFile(t *testing.T) {
	fsys := fstest.MapFS{"lim/lim-vec-001.json/x": {Data: []byte("{}")}}
	_, err := conformance.Load(fsys)
	if err == nil || !strings.Contains(err.Error(), "lim/lim-vec-001.json: not a regular file") {
		t.Errorf("Load(a folder named like a case file) error %v, want it refused as not a regular file", err)
	}
}

// mibOfJunk is a file of almost 1 MiB: a folder of 65 is over the limit
// before any of them is read.
var mibOfJunk = make([]byte, 1<<20-1024)

// edited is the base case with edit applied, as a file.
func edited(t *testing.T, edit func(m map[string]any)) []byte {
	m := baseCase(t)
	edit(m)
	return marshal(t, m)
}

// padded is the base case as id, padded to size bytes with a key readers
// ignore (VEC-8).
func padded(t *testing.T, id string, size int) []byte {
	m := baseCase(t)
	m["id"] = id
	n := len(marshal(t, m))
	m["x-pad"] = strings.Repeat("p", max(size-n-len(`,"x-pad":""`), 0))
	return marshal(t, m)
}

// withOps is the base case as id with n small ops (built as text: a
// folder of them is large).
func withOps(t *testing.T, id string, n int) []byte {
	m := baseCase(t)
	m["id"], m["ops"] = id, []any{}
	const op = `{"op":"lim_ip_key","ip":"","expect":{"key":"0"}}`
	ops := strings.TrimSuffix(strings.Repeat(op+",", n), ",")
	return []byte(strings.Replace(string(marshal(t, m)), `"ops":[]`, `"ops":[`+ops+`]`, 1))
}

// folderOf is a folder of n lim cases lim-vec-001.. made by file.
func folderOf(t *testing.T, n int, file func(id string) []byte) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("lim-vec-%03d", i)
		fsys["lim/"+id+".json"] = &fstest.MapFile{Data: file(id)}
	}
	return fsys
}
