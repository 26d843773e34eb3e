//go:build !unix

package export

func cpuSeconds() float64 { return 0 }
