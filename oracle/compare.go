package oracle

import (
	"reflect"
	"slices"
	"strings"
)

// Divergence is the first place two outcomes of one trace differ, field by
// field.
type Divergence struct {
	// Index is the op's index, or -1 for Open; where one outcome has
	// fewer results than the other, the index of the first result it
	// lacks.
	Index int
	Op    Op // the op (zero for Open, and past the trace's ops)
	// Want and Got are the results at Index: at Open, {} for an outcome
	// that opened and {"error":"config"} for one refused; nil where an
	// outcome has no result.
	Want, Got *Result
	// Fields are the fields of Want and Got whose values differ, in the
	// order of their JSON names; nil when Want or Got is nil.
	Fields []Field
}

// Field is one result field whose value differs between two results: its
// JSON name and each side's value (a Num, *Bytes, *bool, string or
// ErrorClass, as Result holds it), nil on a side without the field.
type Field struct {
	Name      string
	Want, Got any
}

// Compare returns the first divergence of got from want on t, or nil when
// they agree on every op (Result.Equal).
//
// spec VEC-10: "It passes iff every op's result equals its expect exactly"
func Compare(t Trace, want, got Outcome) *Divergence {
	if want.Open != got.Open {
		return diverge(-1, Op{}, &Result{Error: want.Open}, &Result{Error: got.Open})
	}
	n := min(len(want.Results), len(got.Results))
	for i := range n {
		if !want.Results[i].Equal(got.Results[i]) {
			return diverge(i, t.Ops[i], &want.Results[i], &got.Results[i])
		}
	}
	if len(want.Results) == len(got.Results) {
		return nil
	}
	d := &Divergence{Index: n, Want: resultAt(want.Results, n), Got: resultAt(got.Results, n)}
	if n < len(t.Ops) {
		d.Op = t.Ops[n]
	}
	return d
}

// diverge is the divergence at op i between two results present.
func diverge(i int, op Op, want, got *Result) *Divergence {
	w, g := *want, *got // copies: the divergence does not hold the outcomes' arrays
	return &Divergence{Index: i, Op: op, Want: &w, Got: &g, Fields: DiffFields(w, g)}
}

// resultAt returns a copy of rs[i], or nil past its end.
func resultAt(rs []Result, i int) *Result {
	if i >= len(rs) {
		return nil
	}
	r := rs[i]
	return &r
}

// resultField is one field of Result: its index and JSON name.
type resultField struct {
	index int
	name  string
}

// resultFields are Result's fields, in the order of their JSON names.
var resultFields = func() []resultField {
	rt := reflect.TypeFor[Result]()
	fs := make([]resultField, rt.NumField())
	for i := range fs {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		fs[i] = resultField{index: i, name: name}
	}
	slices.SortFunc(fs, func(a, b resultField) int { return strings.Compare(a.name, b.name) })
	return fs
}()

// DiffFields returns the fields whose values differ between want and got,
// in the order of their JSON names; none when want.Equal(got). A field a
// side lacks (its JSON form leaves it out) has the value nil there.
func DiffFields(want, got Result) []Field {
	w, g := reflect.ValueOf(want), reflect.ValueOf(got)
	var out []Field
	for _, f := range resultFields {
		a, b := w.Field(f.index), g.Field(f.index)
		if !valueEqual(a, b) {
			out = append(out, Field{Name: f.name, Want: present(a), Got: present(b)})
		}
	}
	return out
}

// valueEqual reports whether two values of one Result field are equal,
// pointers by what they point to.
func valueEqual(a, b reflect.Value) bool {
	if a.Kind() == reflect.Pointer {
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		a, b = a.Elem(), b.Elem()
	}
	return a.Interface() == b.Interface()
}

// present returns v's value, or nil when it is its zero value: a field
// that Result's JSON form leaves out.
func present(v reflect.Value) any {
	if v.IsZero() {
		return nil
	}
	return v.Interface()
}
