package oracle

import "errors"

// Subject is an implementation under check: the model, impl/, or a
// third-party port. It builds one [Instance] per trace.
type Subject interface {
	// Name names the subject in reports.
	Name() string
	// Implements reports whether the subject implements component c; a
	// trace of another component is skipped, not failed.
	Implements(c Component) bool
	// Open builds an instance of c from cfg. A config the spec refuses
	// (GATE-1, THR-6) is the outcome ErrConfig with a nil Instance, not an
	// error; an error means the subject itself broke.
	Open(c Component, cfg Config) (Instance, ErrorClass, error)
}

// Instance is one live component built by a Subject.
type Instance interface {
	// Do applies op and returns its result. A malformed op (a missing or
	// out-of-domain argument, an op of another component) is an error
	// wrapping ErrBadOp; any other error means the subject broke.
	Do(op Op) (Result, error)
}

// ErrBadOp is wrapped by the error of an op that cannot be applied as given.
var ErrBadOp = errors.New("oracle: bad op")

// ErrUnsupported is wrapped by Open's error for a component the subject
// does not implement.
var ErrUnsupported = errors.New("oracle: component not implemented")
