package protocol

import (
	"errors"
	"syscall"
	"unsafe"
)

// waitLeader waits until the process pid has exited, without reaping it
// (waitid with WNOWAIT), and reports whether it could: while the leader
// is a zombie its id is reserved, so its group can be killed safely.
func waitLeader(pid int) bool {
	const pPID = 1      // waitid's P_PID
	var info [16]uint64 // a siginfo_t, 128 bytes
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if !errors.Is(e, syscall.EINTR) {
			return e == 0
		}
	}
}
