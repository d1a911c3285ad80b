package lake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
)

// SQL names become Iceberg catalog names as they are: a schema is a
// namespace of one level (a dot in it does not nest), a table or view the
// last part of an identifier. Catalogs refuse some names outright, and the
// SQL catalog derives a table's location from the names, which a name must
// not steer out of the warehouse.

// ErrInvalidName is wrapped by every NameError.
var ErrInvalidName = errors.New("invalid name")

// NameError is a schema, table or view name magmalake cannot store.
type NameError struct {
	Kind, Name, Why string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%s name %q %s", e.Kind, e.Name, e.Why)
}

func (e *NameError) Unwrap() error { return ErrInvalidName }

// CheckName refuses a schema, table or view name an Iceberg catalog
// refuses (iceberg-go's, and the REST protocol's, identifier rules): "."
// and "..", and names holding "/" or a control character.
func CheckName(kind, name string) error {
	var why string
	switch {
	case name == "." || name == "..":
		why = "is a path component"
	case strings.Contains(name, "/"):
		why = `contains "/"`
	case strings.ContainsFunc(name, unicode.IsControl):
		why = "contains a control character"
	default:
		return nil
	}
	return &NameError{Kind: kind, Name: name, Why: why + ", which Iceberg catalogs do not allow"}
}

// refusedName turns a REST catalog's 400 answer to a request that names
// something new (CREATE SCHEMA, CREATE TABLE, a rename) into a NameError
// with the server's words: magmalake checked everything else it sends,
// and servers restrict names further than the protocol (SeaweedFS: a-z,
// 0-9, '_' and '-'). nil for any other error.
func refusedName(err error, kind, name string) error {
	if !errors.Is(err, rest.ErrBadRequest) {
		return nil
	}
	return &NameError{Kind: kind, Name: name, Why: "is refused by the REST catalog: " + err.Error()}
}

// checkIdent checks every part of a table or view identifier.
func checkIdent(kind string, ident table.Identifier) error {
	for i, part := range ident {
		k := kind
		if i < len(ident)-1 {
			k = "schema"
		}
		if err := CheckName(k, part); err != nil {
			return err
		}
	}
	return nil
}

// namespaceIdent is the catalog identifier of schema ns: one level, as
// tables name it, whatever dots it holds.
func namespaceIdent(ns string) table.Identifier { return table.Identifier{ns} }

// sqlNamespaceKey is the table_namespace the SQL catalog stores for ns, as
// iceberg-go's namespaceToString spells it: the levels joined with ".",
// unless a level holds a dot (or the text holds the marker): then the
// marker and the levels as JSON. Statements here that read or swap the
// catalog's rows directly must spell it alike.
func sqlNamespaceKey(ns table.Identifier) string {
	const marker = "__iceberg_namespace_v1__:"
	legacy := strings.Join(ns, ".")
	if !strings.Contains(legacy, marker) && !slices.ContainsFunc(ns, func(p string) bool { return strings.Contains(p, ".") }) {
		return legacy
	}
	js, err := json.Marshal(ns)
	if err != nil {
		return legacy // strings always marshal
	}
	return marker + string(js)
}

// pathSegment is name as one segment of a location URI, escaped so that
// the file system (or object key) gets the name itself once the IO
// unescapes it: "%2E%2E%2Fx" stays those characters, not "../x". A "/"
// (CheckName refuses it) or a whole "." or ".." would still make another
// path, so they are spelled %2F, %2E and %2E%2E on disk.
func pathSegment(name string) string {
	switch name {
	case ".":
		name = "%2E"
	case "..":
		name = "%2E%2E"
	}
	return url.PathEscape(strings.ReplaceAll(name, "/", "%2F"))
}

// tableLocation is where a SQL catalog puts a new table of schema ns:
// base (the warehouse, or the schema's location when it has one
// (nsLocation)) then ns.db and the table name as path segments.
func tableLocation(warehouse, nsLocation, ns, name string) string {
	if nsLocation != "" {
		return strings.TrimSuffix(nsLocation, "/") + "/" + pathSegment(name)
	}
	return strings.TrimSuffix(warehouse, "/") + "/" + pathSegment(ns+".db") + "/" + pathSegment(name)
}

// readsAsItself reports whether name, as a segment of a location URI,
// unescapes to itself: it holds no '%' escape (nor a '%' that fails as
// one). The SQL catalog derives a view's location from the names as they
// are, so only such names keep a view in its own directory.
func readsAsItself(name string) bool {
	u, err := url.PathUnescape(name)
	return err == nil && u == name
}

// unescapedUnder reports whether loc, read as the IO reads it (a URI,
// unescaped, ".." resolved), is inside root and not root itself.
func unescapedUnder(loc, root string) bool {
	u, err := url.Parse(loc)
	r, rerr := url.Parse(root)
	if err != nil || rerr != nil {
		return false
	}
	p, rp := path.Clean("/"+u.Path), strings.TrimSuffix(path.Clean("/"+r.Path), "/")
	return u.Scheme == r.Scheme && u.Host == r.Host && strings.HasPrefix(p, rp+"/")
}
