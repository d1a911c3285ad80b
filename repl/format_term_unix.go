//go:build linux || darwin || freebsd || netbsd || openbsd

package repl

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalSize is the terminal's width and height in characters (0 when
// unknown), from the TIOCGWINSZ ioctl psql uses too.
func terminalSize(f *os.File) (cols, rows int) {
	var ws struct{ row, col, xpixel, ypixel uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0, 0
	}
	return int(ws.col), int(ws.row)
}
