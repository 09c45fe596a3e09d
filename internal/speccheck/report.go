package speccheck

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Report renders the coverage table of spec: one row per definition, with
// its kind, where it is defined, the non-test files citing it and the test
// files mentioning it.
func Report(spec *Spec, refs *Refs) string {
	c := newCoverage(refs)
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tKIND\tDEFINED AT\tCITED BY\tTESTED BY")
	for _, d := range spec.Defs {
		fmt.Fprintf(w, "%s\t%s\t%s:%d\t%s\t%s\n", d.ID, kindLabel(d), d.File, d.Line, list(c.cited[d.ID]), list(c.tested[d.ID]))
	}
	w.Flush()
	fmt.Fprintf(&b, "%d definitions, %d retired\n", len(spec.Defs), retired(spec))
	return b.String()
}

// kindLabel returns d's kind, marked when d is retired.
func kindLabel(d Definition) string {
	if d.Retired {
		return d.Kind.String() + " (retired)"
	}
	return d.Kind.String()
}

// list joins files with commas, or returns "-" when there are none.
func list(files []string) string {
	if len(files) == 0 {
		return "-"
	}
	return strings.Join(files, ", ")
}

// retired counts the retired definitions of spec.
func retired(spec *Spec) int {
	n := 0
	for _, d := range spec.Defs {
		if d.Retired {
			n++
		}
	}
	return n
}
