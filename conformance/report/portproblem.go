package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
)

// PortProblem prints on w why the port command could not start and
// returns the exit status: 3 for a broken handshake, 4 when the run's
// --timeout passed first, 2 for a command that cannot run.
func PortProblem(w io.Writer, command string, timeout time.Duration, err error) int {
	var (
		b    *judge.BrokenError
		late *judge.DeadlineError
		bad  *protocol.StartError
	)
	switch {
	case errors.As(err, &b):
		fmt.Fprintf(w, "limcheck: port %s broke the protocol: %s\n", Clean(strconv.Quote(command)), Clean(b.What))
		PrintStderr(w, strings.Join(CleanLines(b.Stderr), "\n"))
		return ExitBroken
	case errors.As(err, &late):
		fmt.Fprintf(w, "limcheck: port %s: the run's --timeout (%v) passed before its hello\n", Clean(strconv.Quote(command)), timeout)
		return ExitIncomplete
	case errors.As(err, &bad):
		fmt.Fprintf(w, "limcheck: the port command %s cannot run: %s\n", Clean(ShellQuote(command)), Clean(bad.Why))
		return ExitUsage
	}
	fmt.Fprintf(w, "limcheck: %s\n", Clean(err.Error()))
	return ExitUsage
}
