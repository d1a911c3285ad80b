package sql

import (
	"context"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// Catalog is what the catalog functions (current_user, current_schemas,
// pg_table_is_visible, format_type, ...) and the reg* casts ask of the
// session running a statement. The session puts it in the statement's
// context; without one they answer as a session with no tables would.
type Catalog interface {
	User() string
	Database() string
	Version() string
	// Setting is current_setting(name); ok is false for an unknown name.
	Setting(name string) (value string, ok bool)
	// CurrentSchemas is the search path's existing schemas; implicit puts
	// pg_catalog in front.
	CurrentSchemas(ctx context.Context, implicit bool) ([]string, error)
	// TableVisible is pg_table_is_visible.
	TableVisible(ctx context.Context, oid int64) (bool, error)
	// RegName is the text form of an oid as regclass, regtype or
	// regnamespace (the number itself when nothing has that oid).
	RegName(ctx context.Context, kind RegKind, oid int64) (string, error)
	// RegOID reads a name as regclass, regtype or regnamespace (42P01 or
	// 42704 when nothing has that name).
	RegOID(ctx context.Context, kind RegKind, name string) (int64, error)
	// FormatType is format_type(oid, typmod); typmod < 0 is none.
	FormatType(oid, typmod int64) (string, bool)
	// RelationSize is pg_table_size: the bytes of a table's live files;
	// ok is false when no relation has that oid.
	RelationSize(ctx context.Context, oid int64) (bytes int64, ok bool, err error)
	// RelationByOID describes the relation with that oid (a table, a view
	// or a catalog relation); ok is false when none has it.
	RelationByOID(ctx context.Context, oid int64) (r RelationInfo, ok bool, err error)
	// DatabaseOID is the oid of the session's database.
	DatabaseOID() int64
}

// RelationInfo is what the privilege functions need of a relation.
type RelationInfo struct {
	Name    string
	Kind    byte // pg_class.relkind: 'r' table, 'v' view
	Catalog bool // one of pg_catalog's or information_schema's
	Columns []string
}

type catalogKey struct{}

// WithCatalog gives a statement's expressions the session's catalog.
func WithCatalog(ctx context.Context, c Catalog) context.Context {
	return context.WithValue(ctx, catalogKey{}, c)
}

// CatalogOf is the statement's catalog, or one of an empty session.
func CatalogOf(ctx context.Context) Catalog {
	if c, ok := ctx.Value(catalogKey{}).(Catalog); ok {
		return c
	}
	return emptyCatalog{}
}

// emptyCatalog answers for a statement run outside a session (tests, the
// binder's constant folding).
type emptyCatalog struct{}

func (emptyCatalog) User() string                           { return "" }
func (emptyCatalog) Database() string                       { return "" }
func (emptyCatalog) Version() string                        { return "" }
func (emptyCatalog) Setting(string) (string, bool)          { return "", false }
func (emptyCatalog) FormatType(int64, int64) (string, bool) { return "", false }
func (emptyCatalog) CurrentSchemas(_ context.Context, implicit bool) ([]string, error) {
	if implicit {
		return []string{"pg_catalog"}, nil
	}
	return nil, nil
}
func (emptyCatalog) TableVisible(context.Context, int64) (bool, error) { return false, nil }
func (emptyCatalog) RelationByOID(context.Context, int64) (RelationInfo, bool, error) {
	return RelationInfo{}, false, nil
}
func (emptyCatalog) DatabaseOID() int64 { return 0 }
func (emptyCatalog) RelationSize(context.Context, int64) (int64, bool, error) {
	return 0, false, nil
}
func (emptyCatalog) RegName(_ context.Context, kind RegKind, oid int64) (string, error) {
	if name, ok := builtinTypeName(oid); ok && kind == RegType {
		return name, nil
	}
	return strconv.FormatInt(oid, 10), nil
}
func (emptyCatalog) RegOID(_ context.Context, kind RegKind, name string) (int64, error) {
	return 0, undefinedReg(kind, name)
}

// undefinedReg is the error of a name that names nothing of its kind.
func undefinedReg(kind RegKind, name string) error {
	switch kind {
	case RegClass:
		return pgerr.Errorf(pgerr.UndefinedTable, "relation %q does not exist", name)
	case RegNamespace:
		return pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", name)
	case RegProc, RegProcedure:
		return pgerr.Errorf(pgerr.UndefinedFunction, "function %q does not exist", name)
	}
	return pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", name)
}

// UndefinedReg is undefinedReg for catalogs outside this package.
func UndefinedReg(kind RegKind, name string) error { return undefinedReg(kind, name) }

// SplitQualifiedName splits a (possibly quoted, possibly schema-qualified)
// relation name as regclass input reads it: unquoted parts fold to lower case.
func SplitQualifiedName(s string) (schema, name string) {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		case !quoted:
			cur.WriteString(strings.ToLower(string(c)))
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, cur.String())
	if len(parts) >= 2 {
		return parts[len(parts)-2], parts[len(parts)-1]
	}
	return "", parts[0]
}

// relationSize is pg_table_size and its kin: NULL for an oid that is no
// relation, as in PostgreSQL.
func relationSize(ctx context.Context, c Catalog, oid int64) (any, error) {
	n, ok, err := c.RelationSize(ctx, oid)
	if err != nil || !ok {
		return nil, err
	}
	return n, nil
}

// relationIndexesSize is pg_indexes_size: a relation here has no indexes.
func relationIndexesSize(ctx context.Context, c Catalog, oid int64) (any, error) {
	_, ok, err := c.RelationSize(ctx, oid)
	if err != nil || !ok {
		return nil, err
	}
	return int64(0), nil
}
