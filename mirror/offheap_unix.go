//go:build unix

package mirror

import "syscall"

// offHeapAlloc returns n zeroed bytes mapped outside the Go heap (anonymous private
// memory), so that the term index's arrays do not count towards the garbage collector's
// target: with GOGC at 400 (stack.GCPercent) a heap of several hundred MB would let
// garbage grow to four times that before a collection (BENCHMARKS.md, "Issue 29: search
// ranking"). The memory must hold no Go pointers and be released with offHeapFree.
func offHeapAlloc(n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

// offHeapFree releases memory from offHeapAlloc.
func offHeapFree(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.Munmap(b)
}
