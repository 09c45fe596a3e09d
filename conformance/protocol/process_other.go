//go:build !unix

package protocol

import "errors"

// StartPort starts command as a port. Ports run under sh -c in their own
// process group (PROTO-1), which needs a Unix system; elsewhere use
// ServePipe or Serve.
func StartPort(command string, opt PortOptions) (*Port, error) {
	return nil, errors.New("protocol: starting a port process needs a Unix system (sh -c, process groups)")
}

// KillAll kills every port process StartPort started: here, none.
func KillAll() int { return 0 }
