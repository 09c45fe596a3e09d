package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/limcheck/limcheck"
	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/internal/implsubject"
	"github.com/limcheck/limcheck/internal/redissubject"
	"github.com/limcheck/limcheck/internal/speccheck"
	"github.com/limcheck/limcheck/internal/walkthrough"
	"github.com/limcheck/limcheck/oracle"
)

// serveCmd serves the bundled implementation (or the model) as a port on
// stdin and stdout: `limcheck run --port 'limcheck serve'` checks it
// through a real process.
func (c cli) serveCmd(args []string) int {
	fs := c.flags("serve", "[-model | -redis ADDR | -redis-cluster SEEDS | -redis-sentinel MASTER@ADDRS]", "Serves the bundled Go implementation (impl/) as a port on stdin and stdout (spec.md PROTO-1..11).", "0 stdin ended, 2 a request line that is not JSON with a seq, a bad Redis address, or a Redis that does not answer")
	model := fs.Bool("model", false, "serve the reference model instead of impl/")
	fs.String("redis", "", "serve the Redis-backed gate and throttle store (impl/redisgate, impl/throttle/redisstore) over the redis-server at `ADDR` (host:port; a Redis Cluster node also works: the client finds its cluster) instead of impl/")
	fs.String("redis-cluster", "", "as -redis, over the Redis Cluster whose seed nodes are `SEEDS` (host:port,host:port,...; refused unless they are cluster nodes)")
	fs.String("redis-sentinel", "", "as -redis, over the primary that the Sentinels at ADDRS monitor as MASTER: `MASTER@ADDRS` (name@host:port,host:port,...); the client follows their failovers")
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	tuneGC()
	var s oracle.Subject = implsubject.Impl{}
	h := bundledHello()
	var chosen []string // the Redis flags given, in name order
	fs.Visit(func(f *flag.Flag) {
		if redisFlags[f.Name] != nil {
			chosen = append(chosen, f.Name)
		}
	})
	switch {
	case *model && len(chosen) > 0:
		fmt.Fprintf(c.stderr, "limcheck serve: -model and -%s exclude each other\n", chosen[0])
		return exitUsage
	case len(chosen) > 1:
		fmt.Fprintf(c.stderr, "limcheck serve: -%s and -%s exclude each other\n", chosen[0], chosen[1])
		return exitUsage
	case *model:
		s, h.Name = oracle.Model{}, "limcheck-model"
	case len(chosen) == 1:
		name := chosen[0]
		r, err := openRedis(redisFlags[name], fs.Lookup(name).Value.String())
		if err != nil {
			fmt.Fprintf(c.stderr, "limcheck serve: -%s: %v\n", name, err)
			return exitUsage
		}
		defer r.Close()
		s, h.Name = r, "limcheck-redis"
	}
	if err := protocol.Serve(c.stdin, c.stdout, s, h); err != nil {
		fmt.Fprintf(c.stderr, "limcheck serve: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// redisFlags are serve's Redis flags, each with the parser of its value.
var redisFlags = map[string]func(string) (redisclient.Target, error){
	"redis":          redisclient.ParseServer,
	"redis-cluster":  redisclient.ParseCluster,
	"redis-sentinel": redisclient.ParseSentinel,
}

// openRedis returns the Redis subject on the target that parse reads from
// value, once it answers.
func openRedis(parse func(string) (redisclient.Target, error), value string) (*redissubject.Redis, error) {
	t, err := parse(value)
	if err != nil {
		return nil, err
	}
	r := redissubject.NewFor(t)
	if err := r.Ping(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// vectorsCmd is `limcheck vectors export DIR`.
func (c cli) vectorsCmd(args []string) int {
	fs := c.flags("vectors", "export [-force] DIR", "Writes the conformance vectors (one file per case, schema.json, ids.txt), the port\nprotocol's schema (protocol.schema.json) and the --json report's (report.schema.json) to DIR.", toolStatuses)
	force := fs.Bool("force", false, "write into DIR even when it is not empty (never through a symbolic link in it: one where a file or folder goes is refused)")
	switch {
	case len(args) == 0:
		fmt.Fprintln(c.stderr, "limcheck vectors: missing subcommand (want export DIR)")
		fs.Usage()
		return exitUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fs.Usage()
		return exitOK
	case args[0] != "export":
		fmt.Fprintf(c.stderr, "limcheck vectors: unknown subcommand %q (want export)\n", args[0])
		fs.Usage()
		return exitUsage
	}
	pos, st := c.parse(fs, args[1:], 1, 1)
	if st != proceed {
		return st
	}
	dir := pos[0]
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 && !*force {
		fmt.Fprintf(c.stderr, "limcheck vectors export: %s is not empty (use -force to write into it)\n", dir)
		return exitUsage
	}
	n, err := export(dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck vectors export: %v\n", err)
		return exitUsage
	}
	out := bufio.NewWriter(c.stdout)
	fmt.Fprintf(out, "wrote %d cases, schema.json, ids.txt, protocol.schema.json and %s to %s (spec %s)\n", n, conformance.ReportSchemaFile, dir, specVersion())
	return c.written("vectors export", out, exitOK)
}

// written writes out, a command's buffered stdout, and returns the
// command's status; when out cannot be written, it prints why and returns
// 2 unless the status is worse.
//
// spec PROTO-10: "When a report cannot be written, the write error is printed, the rest of the report still is, and a status of 1, 3 or 4 wins over 2"
func (c cli) written(cmd string, out *bufio.Writer, status int) int {
	if err := out.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "limcheck %s: write the output: %v\n", cmd, err)
		return worse(status, exitUsage)
	}
	return status
}

// export copies the embedded vectors folder, the protocol schema and the
// report schema to dir and returns the number of case files. It writes
// through no symbolic link: one where it would write a file or make a
// folder (planted in a folder written with -force) is refused by name
// before anything is written, and every write goes through an os.Root of
// dir, so that a link planted meanwhile cannot take it outside dir.
func export(dir string) (int, error) {
	paths, err := exportPaths()
	if err != nil {
		return 0, err
	}
	if err := refuseLinks(dir, paths); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	n := 0
	for _, p := range paths {
		if filepath.Ext(p) == ".json" && strings.Contains(p, "/") {
			n++
		}
		if err := exportOne(root, p); err != nil {
			return n, err
		}
	}
	return n, nil
}

// protocolSchemaFile is the name export gives protocol.ProtocolSchema.
const protocolSchemaFile = "protocol.schema.json"

// exportPaths lists what export writes, slash-separated and relative to
// its folder, each folder before what it holds.
func exportPaths() ([]string, error) {
	var paths []string
	err := fs.WalkDir(conformance.Vectors, ".", func(p string, d fs.DirEntry, err error) error {
		if p != "." {
			paths = append(paths, p)
		}
		return err
	})
	return append(paths, protocolSchemaFile, conformance.ReportSchemaFile), err
}

// exportOne makes the folder or writes the file p in root.
func exportOne(root *os.Root, p string) error {
	var data []byte
	switch p {
	case protocolSchemaFile:
		data = protocol.ProtocolSchema
	case conformance.ReportSchemaFile:
		data = conformance.ReportSchema
	default:
		st, err := fs.Stat(conformance.Vectors, p)
		if err != nil {
			return err
		}
		if st.IsDir() {
			if err := root.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			return nil
		}
		if data, err = fs.ReadFile(conformance.Vectors, p); err != nil {
			return err
		}
	}
	return root.WriteFile(p, data, 0o644)
}

// refuseLinks returns an error naming every path of paths in dir that is
// a symbolic link, with its target, and none for what lies under one.
func refuseLinks(dir string, paths []string) error {
	var links []string
	for _, p := range paths {
		if under(p, links) {
			continue
		}
		if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			links = append(links, p)
		}
	}
	if len(links) == 0 {
		return nil
	}
	named := make([]string, len(links))
	for i, p := range links {
		full := filepath.Join(dir, filepath.FromSlash(p))
		to, _ := os.Readlink(full)
		named[i] = fmt.Sprintf("%s is a symbolic link (to %s)", clean(full), clean(to))
	}
	them := "it"
	if len(links) > 1 {
		them = "them"
	}
	return fmt.Errorf("%s: it would write through %s; remove %s, or export to another folder", strings.Join(named, ", "), them, them)
}

// under reports whether p lies under one of the folders dirs.
func under(p string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") })
}

// coverageCmd prints spec.md's IDs by the vectors that list them.
func (c cli) coverageCmd(args []string) int {
	fs := c.flags("coverage", "[-vectors DIR]", "Prints every clause, finding and decision of spec.md with the vectors that check it,\nthen the domain extremes the vectors pass, then any gap.", "0 every clause covered, 1 a gap, 2 usage or input error, or output that cannot be\nwritten")
	vectors := fs.String("vectors", "", "read the vectors from `DIR` instead of the built-in set")
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	cases, err := loadVectors(*vectors)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck coverage: %v\n", err)
		return exitUsage
	}
	spec, err := speccheck.ReadSpec(limcheck.Files)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck coverage: %v\n", err)
		return exitUsage
	}
	ids := make([]conformance.SpecID, len(spec.Defs))
	for i, d := range spec.Defs {
		ids[i] = conformance.SpecID{ID: d.ID, Retired: d.Retired, NoVector: d.NoVector}
	}
	rep := conformance.Coverage(ids, cases)
	out := bufio.NewWriter(c.stdout)
	fmt.Fprintf(out, "coverage of spec %s by %d vectors\n%s", specVersion(), len(cases), rep)
	gaps := rep.Gaps()
	for _, g := range gaps {
		fmt.Fprintf(out, "gap: %s\n", g)
	}
	if len(gaps) > 0 {
		return c.written("coverage", out, exitFailed)
	}
	return c.written("coverage", out, exitOK)
}

// walkCmd walks spec.md's worked example and findings through the model.
func (c cli) walkCmd(args []string) int {
	fs := c.flags("walk", "[-q]", "Walks spec.md's worked example and the counterexample of every finding through the\nmodel, each step against the value spec.md states.", "0 every step matches spec.md, 1 some step does not, 2 usage error, or output that\ncannot be written")
	quiet := fs.Bool("q", false, "print only failed steps and the closing line")
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	out := bufio.NewWriter(c.stdout)
	if walkReport(walkthrough.All(), *quiet, out) > 0 {
		return c.written("walk", out, exitFailed)
	}
	return c.written("walk", out, exitOK)
}

// walkReport prints the examples and the closing line, and returns the number of
// failed steps.
func walkReport(examples []walkthrough.Example, quiet bool, w io.Writer) int {
	passed, failed := 0, 0
	for _, e := range examples {
		if !quiet {
			fmt.Fprintf(w, "%s: %s\n", e.ID, e.Title)
		}
		for _, s := range e.Steps {
			if s.OK() {
				passed++
			} else {
				failed++
			}
			printStep(w, e.ID, s, quiet)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return failed
}

// printStep prints one step: every step normally, only failures when quiet.
func printStep(w io.Writer, id string, s walkthrough.Step, quiet bool) {
	switch {
	case !s.OK():
		fmt.Fprintf(w, "  FAIL %s %s\n       got  %s\n       want %s\n", id, s.Call, s.Got, s.Want)
	case !quiet:
		fmt.Fprintf(w, "  ok   %s = %s\n", s.Call, s.Got)
	}
}
