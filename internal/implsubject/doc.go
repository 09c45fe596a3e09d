// Package implsubject puts impl/ behind the oracle's vocabulary: [Impl] is
// an [oracle.Subject], so the trace runner, the rapid state machines, the
// fuzz targets and limcheck drive impl/ exactly as they drive the model and
// third-party ports. It lives under internal/ because oracle/ must not import
// impl/ (the layering rule), while fuzz/ and cmd/limcheck may import both.
//
// Implementation limits the model does not have (more than [MaxGateSlots]
// slots, this adapter's bound under impl's gate.MaxSlots; a throttle threshold above throttle.MaxStampsPerKey) make Open fail
// with an error wrapping oracle.ErrUnsupported: such traces are skipped, not
// failed.
//
// Imports: the standard library, oracle and impl/....
package implsubject
