package smp

// Caps on what one document may hold. Real documents are far below them (a ServiceGroup
// lists tens to a few hundred document types, a ServiceMetadata a handful of processes
// and endpoints); they bound the work and memory a hostile document can cause.
const (
	// MaxReferences is the number of ServiceGroup references read. Further references
	// are not read: ParseServiceGroup records one SkippedReference saying how many
	// were left out, and the document is still returned.
	MaxReferences = 10000
	// MaxProcesses is the number of processes a ServiceMetadata may have in total;
	// ParseServiceMetadata fails with ErrMalformed beyond it.
	MaxProcesses = 1000
	// MaxEndpoints is the number of endpoint elements a ServiceMetadata may have in
	// total (counted as written, not per process they apply to); ParseServiceMetadata
	// fails with ErrMalformed beyond it.
	MaxEndpoints = 1000
)

// checkTotals fails a ServiceMetadata whose process or endpoint count is over the caps.
func checkTotals(processes, endpoints int) error {
	if processes > MaxProcesses {
		return malformed("ServiceMetadata has %d processes; at most %d are read", processes, MaxProcesses)
	}
	if endpoints > MaxEndpoints {
		return malformed("ServiceMetadata has %d endpoints; at most %d are read", endpoints, MaxEndpoints)
	}
	return nil
}
