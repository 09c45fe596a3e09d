package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/internal/walkthrough"
)

// defaultOps is the size of the default run's differential fuzz.
const defaultOps = 40000

// defaultRun is limcheck with no arguments: the bundled Go implementation
// (impl/, served through the port protocol in process) against every
// vector, core and strict; a short differential fuzz of it against the
// model (seed 1, defaultOps operations); and spec.md's worked example and
// findings through the model. It prints what did not pass and one line per
// part.
func (c cli) defaultRun() int {
	fmt.Fprintf(c.stdout, "limcheck, spec %s: the bundled Go implementation (impl/) against the reference model\n", report.SpecVersion())
	tuneGC()
	status := report.ExitOK
	worse := func(s int) {
		if s > status {
			status = s
		}
	}
	worse(c.defaultVectors())
	worse(c.defaultFuzz())
	worse(c.defaultWalk())
	if status == report.ExitOK {
		fmt.Fprintln(c.stdout, "all passed")
	} else {
		fmt.Fprintln(c.stdout, "FAILED")
	}
	fmt.Fprint(c.stdout, nextSteps)
	return status
}

// nextSteps closes the default run: what a newcomer does next, which is to
// check their own implementation.
const nextSteps = `
Next, check your own implementation: give it a driver that speaks the port
protocol on stdin/stdout (README.md, "Checking your own implementation";
ports/python/driver.py is one to copy), then:
  limcheck run --port 'python3 driver.py'                  every vector
  limcheck fuzz --port 'python3 driver.py' --duration 60s  random traces against the model
`

// defaultVectors runs every vector.
func (c cli) defaultVectors() int {
	all, err := conformance.Load(conformance.Vectors)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck: %v\n", err)
		return report.ExitUsage
	}
	start := time.Now()
	port, err := bundled(protocol.PortOptions{})
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck: bundled port: %v\n", err)
		return report.ExitBroken
	}
	results, runErr := judge.RunCases(port, all)
	if err := port.Close(); runErr == nil {
		runErr = err
	}
	rep := report.New(port.Hello(), results, nil, time.Since(start))
	if runErr != nil {
		rep.Broken = runErr.Error()
	}
	var body strings.Builder
	report.WriteText(&body, rep, true)
	lines := strings.Split(strings.TrimRight(body.String(), "\n"), "\n")
	for _, l := range lines[1 : len(lines)-1] { // the failures, without the header and closing line
		fmt.Fprintln(c.stdout, l)
	}
	fmt.Fprintf(c.stdout, "vectors: %d cases (core and strict): %s (%v)\n", len(all), rep.Closing(), rep.Elapsed.Round(time.Millisecond))
	return rep.ExitStatus()
}

// defaultFuzz fuzzes the bundled implementation against the model.
func (c cli) defaultFuzz() int {
	port, err := bundled(protocol.PortOptions{})
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck: bundled port: %v\n", err)
		return report.ExitBroken
	}
	fresh := func() (judge.Runner, func() error, error) {
		p, err := bundled(protocol.PortOptions{})
		if err != nil {
			return nil, nil, err
		}
		return p, p.Close, nil
	}
	rep, err := search.Fuzz(port, search.FuzzOptions{Seed: 1, Ops: defaultOps, Fresh: fresh, Isolation: defaultIsolation})
	if cerr := port.Close(); err == nil && rep.Found == nil {
		err = cerr
	}
	switch {
	case rep.Found != nil:
		f := rep.Found
		fmt.Fprintf(c.stdout, "fuzz: seed 1: DIVERGENCE at trace %d, shrunk to %d ops:\n", f.Index, len(f.Trace.Ops))
		if f.Divergence != nil {
			fmt.Fprint(c.stdout, report.DivergenceText(f, "impl"))
		} else {
			fmt.Fprintf(c.stdout, "  %s\n", report.Clean(f.Run.FaultAt(report.OpLabel(f.FaultOp))))
		}
		return report.ExitFailed
	case err != nil:
		fmt.Fprintf(c.stdout, "fuzz: %s\n", report.Clean(err.Error()))
		return report.ExitBroken
	}
	fmt.Fprintf(c.stdout, "fuzz: seed 1, %s over every component: no divergence (%v, %.0f ops/s)\n",
		report.FuzzCounts(rep.FuzzStatus), rep.Elapsed.Round(time.Millisecond), report.OpsRate(rep.FuzzStatus))
	return report.ExitOK
}

// defaultWalk walks spec.md's worked example and findings.
func (c cli) defaultWalk() int {
	if walkthrough.WriteBrief(c.stdout, walkthrough.All()) > 0 {
		return report.ExitFailed
	}
	return report.ExitOK
}
