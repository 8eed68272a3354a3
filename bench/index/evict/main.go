// Command evict drops files from the page cache (posix_fadvise
// POSIX_FADV_DONTNEED; no root needed), so that the next command reads
// them from disk: a cold start after a reboot, or after the library's
// pages were pushed out by other work.
//
//	go run ./bench/index/evict DIR...   # every regular file under each DIR
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func main() {
	var n int64
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			if fi, err := f.Stat(); err == nil {
				n += fi.Size()
			}
			return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "evict:", err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "evict: %d MB dropped from the page cache\n", n>>20)
}
