//go:build !unix

package mirror

// offHeapAlloc returns n zeroed bytes; without mmap they are on the Go heap.
func offHeapAlloc(n int) ([]byte, error) { return make([]byte, n), nil }

// offHeapFree releases memory from offHeapAlloc (the garbage collector does).
func offHeapFree([]byte) error { return nil }
