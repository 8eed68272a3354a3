//go:build !unix

package store_test

import "time"

func cpuTime() time.Duration { return 0 }
