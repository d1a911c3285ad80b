//go:build linux

package repl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

const ptyChildEnv = "MAGMALAKE_REPL_PTY_CHILD"

// runPtyChild is the interactive shell under test, run in a child process
// whose terminal is a pseudo-terminal the test types into.
func runPtyChild() int {
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select\n1": answer(rowsResult([]stmt.Column{{Name: "n", Type: sql.Int32}}, "SELECT 1", []*string{str("1")})),
		"select slow": func(ctx context.Context) (*stmt.Result, error) {
			fmt.Fprintln(os.Stdout, "<slow started>")
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}
	sh := New(f, os.Stdout, os.Stdout)
	if err := sh.RunInteractive(context.Background(), os.Getenv("MAGMALAKE_REPL_HISTORY")); err != nil {
		fmt.Fprintln(os.Stdout, "RunInteractive:", err)
		return 1
	}
	return 0
}

// openPty returns the master side and the path of the slave of a new
// pseudo-terminal.
func openPty() (*os.File, string, error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, "", err
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		return nil, "", e
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		return nil, "", e
	}
	// liner falls back to plain line reading on a terminal narrower than the
	// prompt, and a new pseudo-terminal has no size at all.
	ws := struct{ rows, cols, x, y uint16 }{rows: 24, cols: 80}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		m.Close()
		return nil, "", e
	}
	return m, fmt.Sprintf("/dev/pts/%d", n), nil
}

// ptyOutput collects what the child writes to its terminal.
type ptyOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (o *ptyOutput) pump(m *os.File) {
	b := make([]byte, 4096)
	for {
		n, err := m.Read(b)
		o.mu.Lock()
		o.buf.Write(b[:n])
		o.mu.Unlock()
		select {
		case o.changed <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// expect waits until want appears after offset *from, and moves *from past it.
func (o *ptyOutput) expect(t *testing.T, from *int, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		o.mu.Lock()
		s := o.buf.String()
		o.mu.Unlock()
		if i := strings.Index(s[*from:], want); i >= 0 {
			*from += i + len(want)
			return
		}
		select {
		case <-o.changed:
		case <-deadline:
			t.Fatalf("terminal never showed %q; output so far:\n%q", want, s)
		}
	}
}

// waitLineEditing waits until the shell has put the terminal in raw mode
// (ISIG off): liner prints the prompt before switching, and a Ctrl-C typed
// in between would be a signal rather than a key.
func waitLineEditing(t *testing.T, tty *os.File) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		var tio syscall.Termios
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, tty.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&tio))); e != 0 {
			t.Skipf("cannot read terminal mode: %v", e)
		}
		if tio.Lflag&syscall.ISIG == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("shell never entered line-editing mode")
		}
	}
}

// testTerminal opens a pseudo-terminal: its master side and the
// terminal, both closed when the test ends.
func testTerminal(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, slave, err := openPty()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	tty, err = os.OpenFile(slave, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open %s: %v", slave, err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

// ptyShell is a shell in a child process whose terminal is a
// pseudo-terminal the test types into and reads.
type ptyShell struct {
	t      *testing.T
	master *os.File
	tty    *os.File
	out    *ptyOutput
	pos    int
	exited chan error
}

// startPtyShell runs the child shell mode (ptyChildEnv) with env added.
func startPtyShell(t *testing.T, mode string, env ...string) *ptyShell {
	t.Helper()
	master, tty := testTerminal(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), ptyChildEnv+"="+mode, "TERM=vt100"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &ptyShell{t: t, master: master, tty: tty, out: &ptyOutput{changed: make(chan struct{}, 1)}, exited: make(chan error, 1)}
	go p.out.pump(master)
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return p
}

func (p *ptyShell) typeIn(s string) {
	p.t.Helper()
	if _, err := p.master.WriteString(s); err != nil {
		p.t.Fatal(err)
	}
}

// expect waits for want in what the shell printed since the last match.
func (p *ptyShell) expect(want string) {
	p.t.Helper()
	p.out.expect(p.t, &p.pos, want)
}

// quitWith types the keys that end the shell and waits for a clean exit.
func (p *ptyShell) quitWith(keys string) {
	p.t.Helper()
	p.typeIn(keys)
	select {
	case err := <-p.exited:
		if err != nil {
			p.t.Fatalf("shell exited with %v; output:\n%q", err, p.out.buf.String())
		}
	case <-time.After(10 * time.Second):
		p.t.Fatal("shell did not exit")
	}
}

func TestInteractiveOnTerminal(t *testing.T) {
	history := t.TempDir() + "/history"
	sh := startPtyShell(t, "1", "MAGMALAKE_REPL_HISTORY="+history)
	sh.expect("magmalake=> ")
	sh.typeIn("select\r")
	sh.expect("magmalake-> ")
	sh.typeIn("1;\r")
	sh.expect("(1 row)")
	sh.expect("magmalake=> ")
	// Ctrl-C while a statement runs cancels it, not the shell.
	sh.typeIn("select slow;\r")
	sh.expect("<slow started>")
	sh.typeIn("\x03")
	sh.expect("ERROR:  canceling statement due to user request")
	sh.expect("magmalake=> ")
	// Ctrl-C at the prompt drops the partial line.
	waitLineEditing(t, sh.tty)
	sh.typeIn("select 'half")
	sh.typeIn("\x03")
	sh.expect("magmalake=> ")
	sh.quitWith("\x04") // Ctrl-D quits
	data, err := os.ReadFile(history)
	if err != nil {
		t.Fatalf("history not saved: %v", err)
	}
	if h := string(data); !strings.Contains(h, "select 1;\n") || !strings.Contains(h, "select slow;\n") {
		t.Errorf("history file:\n%s", h)
	}
}
