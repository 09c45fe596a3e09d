package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genvectors writes a vectors folder and says how many cases per component
// and level (VEC-13); bad flags are a usage error.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := run([]string{"-spec", "../../../spec.md", "-dir", dir}, &out, &errs); code != 0 {
		t.Fatalf("run(-dir %s) = %d, stderr %q", dir, code, errs.String())
	}
	if !strings.Contains(out.String(), "lim ") || !strings.Contains(out.String(), " strict") {
		t.Errorf("run stdout = %q, want the counts per component and level", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ids.txt")); err != nil {
		t.Errorf("run wrote no ids.txt: %v", err)
	}
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		if code := run(args, &out, &errs); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (usage)", args, code)
		}
	}
	if code := run([]string{"-spec", filepath.Join(dir, "missing.md")}, &out, &errs); code != 1 {
		t.Errorf("run(-spec missing) = %d, want 1", code)
	}
}
