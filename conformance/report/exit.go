package report

import (
	"runtime/debug"

	"github.com/limcheck/limcheck"
	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
)

// Exit statuses, documented in doc.go, the usage text and docs/commands.md.
//
// spec PROTO-10: "exit with status 0 when every case passed ... 1 when some case failed ... 2 on a usage or input error ... 3 when the port broke the protocol, and 4 when the run is incomplete"
const (
	ExitOK         = 0
	ExitFailed     = 1
	ExitUsage      = 2
	ExitBroken     = 3
	ExitIncomplete = 4
)

// SpecVersion is spec.md's version.
func SpecVersion() string {
	v, err := conformance.SpecVersion([]byte(limcheck.Spec))
	if err != nil {
		return "unknown"
	}
	return v
}

// Worse is the exit status of a run that ended with status and then met
// a problem of status other: the run's own outcome, unless it passed.
func Worse(status, other int) int {
	if status != ExitOK {
		return status
	}
	return other
}

// Failing reports whether a case of verdict v fails the run.
func Failing(v string) bool { return judge.Verdict(v).Failing() }

// ToolVersion is limcheck's module version, with the commit it was built
// from when the build recorded one: "(devel)" for a build in the module.
func ToolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return v
}
