package protocol

import "fmt"

// StartError says that a port's command cannot run at all: sh could not
// start, or it ended with status 127 (not found) or 126 (cannot execute)
// before the port wrote anything on stdout. The command is at fault, not
// a port: it is not a *judge.BrokenError.
type StartError struct {
	Command string
	Why     string // the shell's last line on stderr ("sh: 1: x: not found"), or the start error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("protocol: the port command %q cannot run: %s", e.Command, e.Why)
}
