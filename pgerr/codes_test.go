package pgerr_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
)

// codeConsts reads the package's Code constants from its source: name →
// SQLSTATE, failing t on a constant declared outside codes.go or without a
// string literal of its own.
func codeConsts(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if path != "codes.go" {
						t.Errorf("%s: %s is declared outside codes.go", fset.Position(name.Pos()), name.Name)
					}
					var lit *ast.BasicLit
					if i < len(vs.Values) {
						lit, _ = vs.Values[i].(*ast.BasicLit)
					}
					if lit == nil || lit.Kind != token.STRING {
						t.Errorf("%s: %s has no string literal of its own", fset.Position(name.Pos()), name.Name)
						continue
					}
					code, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
					}
					consts[name.Name] = code
				}
			}
		}
	}
	if len(consts) == 0 {
		t.Fatal("found no Code constants: the test reads the wrong directory")
	}
	return consts
}

// TestCodeConstants keeps codes.go the one vocabulary of SQLSTATEs: every
// constant is five characters of [0-9A-Z] and names a code no other
// constant names (two names for one code let the layers drift apart).
func TestCodeConstants(t *testing.T) {
	sqlstate := regexp.MustCompile(`^[0-9A-Z]{5}$`)
	byCode := map[string]string{}
	for name, code := range codeConsts(t) {
		if !sqlstate.MatchString(code) {
			t.Errorf("%s = %q is not a SQLSTATE (five of [0-9A-Z])", name, code)
		}
		if other, dup := byCode[code]; dup {
			t.Errorf("%s and %s are both %q", other, name, code)
		}
		byCode[code] = name
	}
}

// TestCodeNames checks each constant is named after its code's condition
// in the errcodes.txt of the PostgreSQL 15 the tests compare with
// (in_failed_sql_transaction is InFailedSQLTransaction).
func TestCodeNames(t *testing.T) {
	conditions := errcodes(t)
	for name, code := range codeConsts(t) {
		cond, ok := conditions[code]
		if !ok {
			t.Errorf("%s = %q is not in PostgreSQL's errcodes.txt", name, code)
			continue
		}
		if want := goName(cond); name != want {
			t.Errorf("%s = %q: PostgreSQL calls it %s; name it %s", name, code, cond, want)
		}
	}
}

// errcodes reads SQLSTATE → condition name from the errcodes.txt that
// PostgreSQL installs in its share directory.
func errcodes(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command(filepath.Join(pgtest.BinDir(), "pg_config"), "--sharedir").Output()
	if err != nil {
		testenv.Missing(t, "pg_config of PostgreSQL 15: %v (apt-get install postgresql-15)", err)
	}
	f, err := os.Open(filepath.Join(strings.TrimSpace(string(out)), "errcodes.txt"))
	if err != nil {
		testenv.Missing(t, "PostgreSQL's errcodes.txt: %v", err)
	}
	defer f.Close()
	// Lines of a condition: sqlstate, E/W/S, ERRCODE_ macro, condition name.
	conditions := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 4 && len(fields[0]) == 5 && !strings.HasPrefix(fields[0], "#") {
			conditions[fields[0]] = fields[3]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(conditions) == 0 {
		t.Fatalf("%s holds no conditions", f.Name())
	}
	return conditions
}

// initialisms are spelled in capitals in Go names.
var initialisms = map[string]string{"sql": "SQL", "io": "IO"}

// goName is a condition name in Go's spelling: in_failed_sql_transaction
// is InFailedSQLTransaction.
func goName(cond string) string {
	var b strings.Builder
	for _, w := range strings.Split(cond, "_") {
		if up, ok := initialisms[w]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func TestClass(t *testing.T) {
	for _, c := range []struct{ code, class pgerr.Code }{
		{pgerr.DivisionByZero, pgerr.DataException},
		{pgerr.NotNullViolation, pgerr.IntegrityConstraintViolation},
		{pgerr.InvalidPassword, pgerr.InvalidAuthorizationSpecification},
		{pgerr.InvalidAuthorizationSpecification, pgerr.InvalidAuthorizationSpecification},
		{"", ""},
	} {
		if got := c.code.Class(); got != c.class {
			t.Errorf("%q.Class() = %q, want %q", c.code, got, c.class)
		}
	}
}
