package oracle

// GoString methods render the vocabulary as its JSON, so that %#v (rapid's
// draw logs, go-cmp's reports of nested values) reads like the traces a
// Divergence report prints instead of pointers and Num internals.

// GoString renders n as oracle.Num(decimal), or oracle.Num(absent).
func (n Num) GoString() string { return "oracle.Num(" + n.String() + ")" }

// GoString renders o as oracle.Op and its JSON line.
func (o Op) GoString() string { return "oracle.Op" + jsonLine(o) }

// GoString renders c as oracle.Config and its JSON line.
func (c Config) GoString() string { return "oracle.Config" + jsonLine(c) }

// GoString renders r as oracle.Result and its JSON line.
func (r Result) GoString() string { return "oracle.Result" + jsonLine(r) }
