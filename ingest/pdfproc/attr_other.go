//go:build unix && !linux

package pdfproc

import "syscall"

// childAttr: only Linux kills a child with its parent; elsewhere the
// child ends when its extraction does (pdf.MaxDuration at most).
func childAttr() *syscall.SysProcAttr { return nil }
