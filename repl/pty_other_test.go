//go:build !linux

package repl

const ptyChildEnv = "MAGMALAKE_REPL_PTY_CHILD"

func runPtyChild() int { return 0 }
