package magmalake

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/magmalake/magmalake"

// inModule is the package of the module that import path names ("" is
// the root), or false for a path outside it.
func inModule(imp string) (string, bool) {
	if imp == module {
		return "", true
	}
	return strings.CutPrefix(imp, module+"/")
}

// allowedImports is the module's layering: the packages of this module each
// package may import. Data flows one way (wire and the shell, the session,
// the statement packages, the engine, sql and the delete engine, the Iceberg
// layer), so a package only ever names packages below it. A new package, or
// a new arrow, is added here on purpose.
var allowedImports = map[string][]string{
	"":                    nil,
	"pgerr":               nil,
	"internal/cli":        nil,
	"internal/lru":        nil,
	"internal/parallel":   nil,
	"internal/rowruns":    nil,
	"internal/tracefile":  nil,
	"internal/testenv":    nil,
	"internal/progress":   nil,
	"internal/theta":      nil,
	"internal/arrowtest":  nil,
	"lake":                {"internal/lru", "internal/parallel", "internal/progress", "internal/theta"},
	"sql":                 {"pgerr", "sql/parse"},
	"sql/parse":           {"pgerr"},
	"stmt":                {"internal/progress", "pgerr", "sql"},
	"deletes":             {"internal/lru", "internal/parallel", "internal/progress", "internal/rowruns", "lake"},
	"pgcatalog":           {"lake", "pgerr", "sql"},
	"metatable":           {"deletes", "lake", "pgerr", "sql"},
	"plan":                {"lake", "metatable", "pgerr", "sql"},
	"engine":              {"deletes", "internal/rowruns", "lake", "metatable", "pgerr", "plan", "sql", "stmt"},
	"maintenance":         {"deletes", "engine", "lake", "pgerr", "plan", "sql", "stmt"},
	"copyio":              {"engine", "lake", "pgerr", "plan", "sql", "stmt"},
	"ddl":                 {"engine", "lake", "pgerr", "plan", "sql", "stmt"},
	"dml":                 {"deletes", "engine", "lake", "pgerr", "plan", "sql", "stmt"},
	"session":             {"", "copyio", "ddl", "deletes", "dml", "engine", "internal/progress", "lake", "maintenance", "metatable", "pgcatalog", "pgerr", "plan", "sql", "stmt"},
	"wire":                {"pgerr", "sql", "stmt"},
	"repl":                {"pgerr", "sql", "stmt"},
	"repl/remote":         {"pgerr", "sql", "stmt"},
	"bench":               {"lake", "session", "sql", "stmt"},
	"cmd/magmalake":       {"internal/cli", "lake", "maintenance", "repl", "repl/remote", "session", "stmt", "wire"},
	"cmd/magmalake-bench": {"bench", "internal/cli"},
	"internal/pgtest":     {"internal/testenv"},
	"internal/s3test":     {"internal/testenv"},
	"internal/testserver": {"lake", "session", "wire"},
	"internal/e2e":        nil,
}

// tidbImporters are the packages that may name the TiDB parser: sql/parse
// alone, which turns PostgreSQL text into magmalake's own syntax tree (TiDB
// parses it, after the normaliser rewrote it into TiDB's dialect).
var tidbImporters = []string{"sql/parse"}

func TestPackagesImportOnlyDownward(t *testing.T) {
	for pkg, imports := range moduleImports(t) {
		allowed, known := allowedImports[pkg]
		if !known {
			t.Errorf("package %q is not in allowedImports: add it with the packages it may import", pkg)
			continue
		}
		for _, imp := range imports {
			if dep, ok := inModule(imp); ok {
				if !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s, which is not below it (allowedImports)", name(pkg), name(dep))
				}
				continue
			}
			if strings.HasPrefix(imp, "github.com/pingcap/tidb") && !slices.Contains(tidbImporters, pkg) {
				t.Errorf("%s imports the TiDB parser (%s); only %v may", name(pkg), imp, tidbImporters)
			}
		}
	}
}

// maxMethods is how many methods a type may have: past it a type does
// more than one job.
const maxMethods = 40

func TestTypesStaySmall(t *testing.T) {
	for pkg := range moduleImports(t) {
		for typ, n := range methodCounts(t, pkg) {
			if n > maxMethods {
				t.Errorf("%s.%s has %d methods (at most %d): split it by job", name(pkg), typ, n, maxMethods)
			}
		}
	}
}

// methodCounts counts the methods of each type in pkg's non-test files.
func methodCounts(t *testing.T, pkg string) map[string]int {
	t.Helper()
	dir := filepath.FromSlash(pkg)
	if pkg == "" {
		dir = "."
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v): the test reads the tree from the module root", pkg, err)
	}
	counts := map[string]int{}
	fset := token.NewFileSet()
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", p, err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				counts[receiverType(fn.Recv.List[0].Type)]++
			}
		}
	}
	return counts
}

// receiverType names a receiver's type without its pointer or type
// parameters.
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// TestClientsSeeOnlyTheSessionAPI: the wire protocol and the shell know the
// session through the values in stmt alone; they link neither the session,
// the planners, the engine nor the Iceberg layer.
func TestClientsSeeOnlyTheSessionAPI(t *testing.T) {
	graph := moduleImports(t)
	for _, client := range []string{"wire", "repl", "repl/remote"} {
		for _, dep := range reachable(graph, client) {
			if !slices.Contains([]string{"stmt", "pgerr", "sql", "sql/parse", "internal/progress", "wire"}, dep) {
				t.Errorf("%s links %s", client, dep)
			}
		}
	}
}

// TestServerDoesNotLinkBenchmarks: the benchmarks have their own command.
func TestServerDoesNotLinkBenchmarks(t *testing.T) {
	graph := moduleImports(t)
	if deps := reachable(graph, "cmd/magmalake"); slices.Contains(deps, "bench") {
		t.Errorf("cmd/magmalake links the benchmarks: %v", deps)
	}
}

func name(pkg string) string {
	if pkg == "" {
		return "the module root"
	}
	return pkg
}

// reachable lists the module packages pkg depends on, directly or not.
func reachable(graph map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, imp := range graph[p] {
			dep, ok := inModule(imp)
			if ok && !seen[dep] {
				seen[dep] = true
				walk(dep)
			}
		}
	}
	walk(pkg)
	out := make([]string, 0, len(seen))
	for dep := range seen {
		out = append(out, dep)
	}
	sort.Strings(out)
	return out
}

// moduleImports reads the imports of every package's non-test files, by
// directory relative to the module root.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if pkg == "." {
			pkg = ""
		}
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if !slices.Contains(graph[pkg], imp) {
				graph[pkg] = append(graph[pkg], imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's imports: %v", err)
	}
	if len(graph) < 10 {
		t.Fatalf("found only %d packages: the test reads the tree from the module root", len(graph))
	}
	return graph
}
