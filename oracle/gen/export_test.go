package gen

// BulkSize returns the admits of the bulk run that TraceSeeded(Gate,
// seed) opens with (0: none), from its side stream alone, at no cost:
// tests find the rare long traces without drawing every trace before them.
// A gate config the model refuses runs no bulk run, whatever this says.
func BulkSize(seed uint64) int { return drawBulkSize(newSeedSrc(seed).side()) }
