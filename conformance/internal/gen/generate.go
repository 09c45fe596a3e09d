package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/internal/build"
	"github.com/limcheck/limcheck/oracle"
)

// Generate fills drafts through the model and writes them into dir, a
// vectors folder (it may be empty): one file per case, ids.txt, and no
// stale case file. It keeps the IDs of the cases already in dir. schema.json
// is not touched.
func Generate(dir, specVersion string, drafts []build.Draft) ([]conformance.Case, error) {
	entries, err := fill(drafts, specVersion)
	if err != nil {
		return nil, err
	}
	prev, err := previous(dir, entries)
	if err != nil {
		return nil, err
	}
	issued, err := readIDs(dir)
	if err != nil {
		return nil, err
	}
	cases, ids, err := Assign(prev, issued, entries)
	if err != nil {
		return nil, err
	}
	if err := write(dir, cases); err != nil {
		return nil, err
	}
	return cases, os.WriteFile(filepath.Join(dir, conformance.IDsFile), conformance.FormatIDs(ids), 0o644)
}

// fill runs every draft through the model.
func fill(drafts []build.Draft, specVersion string) ([]Entry, error) {
	entries := make([]Entry, 0, len(drafts))
	for _, d := range drafts {
		c, err := build.Fill(d)
		if err != nil {
			return nil, err
		}
		c.SpecVersion = specVersion
		entries = append(entries, Entry{Area: d.Area, Case: c})
	}
	return entries, nil
}

// previous maps the key of every case file in dir to its ID, leaving out
// each case whose expectations entries change: its ops (their arguments and
// expected results) or its expect_open, so that it gets a new ID and its old
// one is retired. It reads only component, id, description, ops and
// expect_open, so that it survives a change elsewhere in the format (a
// config gaining a field with the same expectations keeps its ID).
//
// spec VEC-2: "a case whose expectations changed gets a new ID (VEC-3)"
func previous(dir string, entries []Entry) (map[string]string, error) {
	now := map[string]expectations{}
	for _, e := range entries {
		data, err := json.Marshal(e.Case)
		if err != nil {
			return nil, fmt.Errorf("gen: %w", err)
		}
		x, err := readExpectations(data)
		if err != nil {
			return nil, fmt.Errorf("gen: %s: %w", e.Case.Description, err)
		}
		now[key(e.Case)] = x
	}
	prev := map[string]string{}
	for _, comp := range oracle.Components() {
		files, err := filepath.Glob(filepath.Join(dir, string(comp), "*.json"))
		if err != nil {
			return nil, fmt.Errorf("gen: %w", err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("gen: %w", err)
			}
			var c conformance.Case
			if err := json.Unmarshal(data, &struct {
				ID          *string           `json:"id"`
				Component   *oracle.Component `json:"component"`
				Description *string           `json:"description"`
			}{&c.ID, &c.Component, &c.Description}); err != nil {
				return nil, fmt.Errorf("gen: %s: %w", f, err)
			}
			was, err := readExpectations(data)
			if err != nil {
				return nil, fmt.Errorf("gen: %s: %w", f, err)
			}
			if x, ok := now[key(c)]; ok && reflect.DeepEqual(x, was) {
				prev[key(c)] = c.ID
			}
		}
	}
	return prev, nil
}

// expectations is what a case expects, as JSON values: its ops, each with
// its arguments and its expect, and its expect_open.
type expectations struct {
	Ops        any `json:"ops"`
	ExpectOpen any `json:"expect_open"`
}

// readExpectations reads a case file's expectations.
func readExpectations(data []byte) (expectations, error) {
	var x expectations
	err := json.Unmarshal(data, &x)
	return x, err
}

// readIDs reads dir's ids.txt; a missing one lists nothing.
func readIDs(dir string) ([]conformance.IssuedID, error) {
	ids, err := conformance.ReadIDs(os.DirFS(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return ids, err
}

// write writes every case's file into dir and removes the case files that
// are not among them. Each file is read back, so that the generator never
// writes a case the loader refuses.
func write(dir string, cases []conformance.Case) error {
	keep := map[string]bool{}
	for _, c := range cases {
		data, err := encode(c)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, string(c.Component), c.ID+".json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		keep[p] = true
	}
	return removeStale(dir, keep)
}

// encode returns c's canonical bytes, after checking that they read back
// as the same case.
func encode(c conformance.Case) ([]byte, error) {
	data, err := conformance.Encode(c)
	if err != nil {
		return nil, err
	}
	back, err := conformance.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("gen: case %s does not read back: %w", c.ID, err)
	}
	again, err := conformance.Encode(back)
	if err != nil || !bytes.Equal(again, data) {
		return nil, fmt.Errorf("gen: case %s does not read back as itself (%v)", c.ID, err)
	}
	return data, nil
}

// removeStale removes the case files of dir that keep does not list.
func removeStale(dir string, keep map[string]bool) error {
	for _, comp := range oracle.Components() {
		files, err := filepath.Glob(filepath.Join(dir, string(comp), "*.json"))
		if err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		for _, f := range files {
			if !keep[f] {
				if err := os.Remove(f); err != nil {
					return fmt.Errorf("gen: %w", err)
				}
			}
		}
	}
	return nil
}
