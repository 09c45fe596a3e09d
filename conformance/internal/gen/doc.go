// Package gen writes the conformance vectors: it fills every draft of
// conformance/internal/build through the model, gives each case its ID and
// writes one canonical file per case, with ids.txt, into a vectors folder.
//
// IDs are stable (spec VEC-3): a case keeps the ID of the committed case
// with the same component and description; a new case gets the next number
// of its component and area after every number ids.txt has ever listed; a
// case no builder makes any more loses its file and is marked retired in
// ids.txt. Nothing is ever renumbered.
//
// API: [Generate] does it all for a folder; [Assign] is its ID step alone.
//
// Imports: the standard library, conformance, conformance/internal/build
// and oracle.
package gen
