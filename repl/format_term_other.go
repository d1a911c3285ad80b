//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package repl

import "os"

// terminalSize is unknown here: expanded auto needs $COLUMNS or \pset
// columns, and the pager is not used.
func terminalSize(*os.File) (cols, rows int) { return 0, 0 }
