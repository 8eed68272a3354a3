package pdfproc

import "syscall"

// childAttr makes the child die with its parent: a parent killed (kill
// -9, an out-of-memory kill) leaves no extraction running.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
