// Package speccheck enforces the clause discipline of spec.md: every clause
// ID defined there is cited by the code that implements it and exercised by
// at least one test, and every ID cited anywhere in the module exists and is
// not retired.
//
// The specification is two files at the repository root (see [Files]):
// spec.md, the normative text, and spec-decisions.md, its decision register.
// Both define IDs, in one namespace: "defined in spec.md" below means
// defined in either.
//
// # spec.md conventions
//
// A definition is a line that starts (after optional spaces and an optional
// "- " or "* " list marker) with a bold ID such as **AREA-n**, where AREA is
// one or more capital letters and n a decimal number. A definition whose line
// contains "(retired)" is retired. The ID's prefix gives its kind: PROP is a
// property, FIND a finding, DEC a decision-register entry, and any other
// prefix a normative clause area.
//
// # Rules
//
//   - An ID is defined at most once.
//   - A live clause is cited, by the exact text "spec AREA-n", in a non-test
//     .go file under its area's implementer directory (see Implementer), or
//     anywhere in the module when the area has none.
//   - A live clause or finding is mentioned, as a whole word, by at least one
//     _test.go file; a live property by one that imports pgregory.net/rapid.
//   - A decision cites no code, but every ID it mentions (on its line or in
//     the lines after it, up to the next definition or heading) exists and is
//     not retired.
//   - Every whole-word AREA-n in any .go file, where AREA is a prefix spec.md
//     defines, is a defined, non-retired ID; so is every "spec AREA-n"
//     citation, whatever its prefix.
//
// Scanning skips testdata, vendor and dot directories.
//
// # Imports
//
// The package imports the standard library only.
//
// # API
//
//   - [Parse] reads the specification's [Source] files into a [Spec] of
//     [Definition] values; [ReadSpec] reads [Files] from an fs.FS.
//   - [Scan] collects the [Refs] of every .go file in an fs.FS.
//   - [Load] does both for a repository root.
//   - [Check] applies the rules and returns sorted [Problem] values.
//   - [Report] renders the clause coverage table.
//   - [Implementer] names the directory that implements a clause area.
package speccheck
