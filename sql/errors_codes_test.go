package sql

import (
	// Renamed: the package declares a token of its own.
	goast "go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSQLSTATEConstants keeps errors.go the one vocabulary of SQLSTATEs: every
// Code* constant of the package is declared there, is five characters of
// [0-9A-Z], and names a code no other constant names (two names for one code
// let the layers drift apart again).
func TestSQLSTATEConstants(t *testing.T) {
	sqlstate := regexp.MustCompile(`^[0-9A-Z]{5}$`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	byCode := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := goparser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*goast.GenDecl)
			if !ok || gen.Tok != gotoken.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*goast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Code") {
						continue
					}
					if path != "errors.go" {
						t.Errorf("%s: %s is declared outside errors.go", fset.Position(name.Pos()), name.Name)
					}
					if i >= len(vs.Values) {
						t.Errorf("%s: %s has no value of its own", fset.Position(name.Pos()), name.Name)
						continue
					}
					lit, ok := vs.Values[i].(*goast.BasicLit)
					if !ok || lit.Kind != gotoken.STRING {
						t.Errorf("%s: %s is not a string literal", fset.Position(name.Pos()), name.Name)
						continue
					}
					code, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
					}
					if !sqlstate.MatchString(code) {
						t.Errorf("%s = %q is not a SQLSTATE (five of [0-9A-Z])", name.Name, code)
					}
					if other, dup := byCode[code]; dup {
						t.Errorf("%s and %s are both %q", other, name.Name, code)
					}
					byCode[code] = name.Name
				}
			}
		}
	}
	if len(byCode) == 0 {
		t.Fatal("found no Code* constants: the test reads the wrong directory")
	}
}
