//go:build unix

package ask

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user+system) used by this process so far:
// benchmarks report it next to wall time because the machine is shared.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
