package fuzz

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed corpus under testdata/fuzz")

// TestImplAgreesOnSeedTraces checks that impl equals the model on every
// seed trace: the findings' counterexamples (FIND-1..FIND-13 where they
// apply) and the edge cases of seeds_test.go, each a named regression test.
func TestImplAgreesOnSeedTraces(t *testing.T) {
	for target, seeds := range traceSeeds() {
		for _, s := range seeds {
			t.Run(target+"/"+s.name, func(t *testing.T) { checkTrace(t, s.tr) })
		}
	}
}

// pastImpl reports whether cfg is past what the format (and impl) carry: a
// gate of more than 4096 sets or ways (the format reduces each), a threshold
// over 16384.
func pastImpl(cfg oracle.Config) bool {
	if g := cfg.Gate; g != nil {
		sets, _ := g.Sets.Int64()
		ways, _ := g.Ways.Int64()
		return sets > 4096 || ways > 4096
	}
	if th := cfg.Throttle; th != nil {
		n, _ := th.Threshold.Uint64()
		return n > 1<<14
	}
	return false
}

// corpusFile is one file of a seed corpus.
type corpusFile struct {
	target, name string
	values       []any // []byte or int64
	generated    bool  // drawn by a generator: written by -update-corpus, not compared
}

// corpusFiles lists the seed corpus: the trace seeds encoded for their
// target, gen.Trace examples, FuzzIPKey's and FuzzResp503's inputs, and
// fixed pseudo-random inputs of the state-machine targets.
func corpusFiles() []corpusFile {
	var files []corpusFile
	for target, seeds := range traceSeeds() {
		for _, s := range seeds {
			files = append(files, corpusFile{target: target, name: s.name, values: []any{encodeTrace(s.tr)}})
		}
	}
	for _, c := range oracle.Components() {
		for seed := range 6 {
			tr := gen.Trace(c).Example(seed)
			files = append(files, corpusFile{target: "Fuzz" + targetOf(c), name: fmt.Sprintf("gen-%d", seed),
				values: []any{encodeTrace(tr)}, generated: true})
		}
	}
	for name, ip := range ipSeeds() {
		files = append(files, corpusFile{target: "FuzzIPKey", name: name, values: []any{[]byte(ip)}})
	}
	for name, retry := range respSeeds() {
		files = append(files, corpusFile{target: "FuzzResp503", name: name, values: []any{retry}})
	}
	return append(files, machineFiles()...)
}

// targetOf names the fuzz target suffix of component c.
func targetOf(c oracle.Component) string {
	return map[oracle.Component]string{oracle.Lim: "Lim", oracle.Gate: "Gate", oracle.Throttle: "Throttle", oracle.ThrottleFaults: "ThrottleFaults"}[c]
}

// machineFiles are inputs of the state-machine targets: empty, and fixed
// pseudo-random bytes (PCG, seeded) of a few lengths.
func machineFiles() []corpusFile {
	var files []corpusFile
	for _, c := range oracle.Components() {
		files = append(files, corpusFile{target: "FuzzMachine" + targetOf(c), name: "empty", values: []any{[]byte{}}})
		for _, n := range []int{64, 512, 2048} {
			r := rand.New(rand.NewPCG(uint64(n), 1))
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			files = append(files, corpusFile{target: "FuzzMachine" + targetOf(c), name: fmt.Sprintf("pcg-%d", n), values: []any{b}})
		}
	}
	return files
}

// content is the file in go's corpus format.
func (f corpusFile) content() string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, v := range f.values {
		switch v := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case int64:
			fmt.Fprintf(&b, "int64(%d)\n", v)
		}
	}
	return b.String()
}

func (f corpusFile) path() string { return filepath.Join("testdata", "fuzz", f.target, f.name) }

// TestSeedCorpusIsCurrent checks that every seed corpus file the tables
// define is in testdata/fuzz/<target>/ with the content they give, so that
// go test runs each as a regression test and go test -fuzz starts from
// them. go test ./fuzz -run TestSeedCorpusIsCurrent -update-corpus rewrites
// them (and the generated ones).
func TestSeedCorpusIsCurrent(t *testing.T) {
	for _, f := range corpusFiles() {
		if *updateCorpus {
			writeCorpusFile(t, f)
			continue
		}
		if f.generated {
			continue
		}
		got, err := os.ReadFile(f.path())
		if err != nil || string(got) != f.content() {
			t.Errorf("%s is missing or stale (%v): run go test ./fuzz -run TestSeedCorpusIsCurrent -update-corpus", f.path(), err)
		}
	}
}

func writeCorpusFile(t *testing.T, f corpusFile) {
	if err := os.MkdirAll(filepath.Dir(f.path()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path(), []byte(f.content()), 0o644); err != nil {
		t.Fatal(err)
	}
}
