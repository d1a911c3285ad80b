package sql

import (
	"context"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// The has_*_privilege family and pg_has_role, as PostgreSQL 15 answers
// them for magmalake's one role (which owns everything) and for PUBLIC
// (which has PostgreSQL's default grants): the object is looked up first,
// by name (an error when there is none: 42P01, 3F000, 3D000, 42704, 42883)
// or by oid (NULL when there is none), then the privilege list is checked
// against the object's privileges (22023 for a word that is none of them).

// privilegeFunc is one function of the family.
type privilegeFunc struct {
	privs  []string // the privileges its list may name
	column bool     // takes a column after the object
	// lookup finds the object named (text) or numbered (int64): ok is
	// false for an oid nothing has.
	lookup func(ctx context.Context, c Catalog, obj any) (privObject, bool, error)
	// public reports whether PUBLIC holds priv on obj by PostgreSQL's
	// default grants (nil: none); magmalake grants nothing itself.
	public func(obj privObject, priv string) bool
}

// privObject is what PUBLIC's default grants depend on.
type privObject struct {
	name    string
	catalog bool // a catalog relation or schema (PUBLIC may read it)
	columns []string
}

func privilegeFunctions() []Function {
	objects := "name,text,text | name,oid,text | oid,text,text | oid,oid,text | text,text | oid,text"
	columns := "name,text,text,text | name,text,smallint,text | name,oid,text,text | name,oid,smallint,text | " +
		"oid,text,text,text | oid,text,smallint,text | oid,oid,text,text | oid,oid,smallint,text | " +
		"text,text,text | text,smallint,text | oid,text,text | oid,smallint,text"
	roles := "name,name,text | name,oid,text | oid,name,text | oid,oid,text | name,text | oid,text"
	// PUBLIC's privileges by PostgreSQL 15's default grants: SELECT on the
	// catalog's relations, USAGE on the public and catalog schemas,
	// CONNECT and TEMPORARY on databases, EXECUTE on functions, USAGE on
	// types and on trusted languages (sql).
	catalogSelect := func(obj privObject, p string) bool { return obj.catalog && p == "SELECT" }
	always := func(privObject, string) bool { return true }
	relation := []string{"SELECT", "INSERT", "UPDATE", "REFERENCES"}
	return []Function{
		privilegeEntry("has_table_privilege", objects, privilegeFunc{privs: []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "RULE"},
			lookup: lookupRelation(""), public: catalogSelect}),
		privilegeEntry("has_column_privilege", columns, privilegeFunc{privs: relation, column: true, lookup: lookupRelation(""), public: catalogSelect}),
		privilegeEntry("has_any_column_privilege", objects, privilegeFunc{privs: relation, lookup: lookupRelation(""), public: catalogSelect}),
		privilegeEntry("has_sequence_privilege", objects, privilegeFunc{privs: []string{"USAGE", "SELECT", "UPDATE"}, lookup: lookupRelation("sequence")}),
		privilegeEntry("has_schema_privilege", objects, privilegeFunc{privs: []string{"CREATE", "USAGE"}, lookup: lookupSchema,
			public: func(obj privObject, p string) bool { return p == "USAGE" && (obj.catalog || obj.name == "public") }}),
		privilegeEntry("has_database_privilege", objects, privilegeFunc{privs: []string{"CREATE", "CONNECT", "TEMPORARY", "TEMP"}, lookup: lookupDatabase,
			public: func(_ privObject, p string) bool { return p != "CREATE" }}),
		privilegeEntry("has_function_privilege", objects, privilegeFunc{privs: []string{"EXECUTE"}, lookup: lookupReg(RegProcedure), public: always}),
		privilegeEntry("has_type_privilege", objects, privilegeFunc{privs: []string{"USAGE"}, lookup: lookupReg(RegType), public: always}),
		privilegeEntry("has_language_privilege", objects, privilegeFunc{privs: []string{"USAGE"},
			lookup: lookupNamed("language", map[string]int64{"internal": 12, "c": 13, "sql": 14}),
			public: func(obj privObject, _ string) bool { return obj.name == "sql" }}),
		privilegeEntry("has_tablespace_privilege", objects, privilegeFunc{privs: []string{"CREATE"},
			lookup: lookupNamed("tablespace", map[string]int64{"pg_default": 1663, "pg_global": 1664})}),
		privilegeEntry("pg_has_role", roles, privilegeFunc{privs: []string{"MEMBER", "USAGE"}, lookup: lookupRole}),
	}
}

// privilegeEntry is the registry's entry of one function of the family:
// ([user,] object, [column,] privileges), the user a name or an oid, the
// object a name or an oid, the column a name or a number.
func privilegeEntry(name, signatures string, f privilegeFunc) Function {
	return Function{Name: name, Volatility: Stable, Strict: true, Signatures: sigs(signatures),
		bind: f.bind,
		row: func(ev *evaluator, _ *Func) rowFunc {
			return func(a []any) (any, error) { return f.call(ev.ctx, ev.catalog, a) }
		}}
}

func (f privilegeFunc) bind(b callBinder, name string, args []Expr) (Expr, error) {
	n := 2
	if f.column {
		n = 3
	}
	if len(args) != n && len(args) != n+1 {
		return nil, noFunction(name, args)
	}
	for i, a := range args {
		want, last := Text, i == len(args)-1
		if isUnknown(a) {
			c, err := b.coerceUnknown(a, want)
			if err != nil {
				return nil, err
			}
			args[i] = c
			continue
		}
		t := a.Type()
		if !t.IsString() && (last || !isIntegerKind(t) && t.Kind != KindOID) {
			return nil, noFunction(name, args)
		}
	}
	return &Func{Name: name, Args: args, T: Bool}, nil
}

// call evaluates one row's call (no argument NULL).
func (f privilegeFunc) call(ctx context.Context, c Catalog, a []any) (any, error) {
	n := 2
	if f.column {
		n = 3
	}
	public := false
	if len(a) > n {
		var err error
		if public, err = privilegeRole(c, a[0]); err != nil {
			return nil, err
		}
		a = a[1:]
	}
	obj, ok, err := f.lookup(ctx, c, a[0])
	if err != nil || !ok {
		return nil, err
	}
	if f.column {
		if ok, err := columnExists(obj, a[1]); err != nil || !ok {
			return nil, err
		}
	}
	privs, err := privilegeList(a[len(a)-1].(string), f.privs)
	if err != nil {
		return nil, err
	}
	if !public {
		return !(len(privs) == 1 && privs[0] == "RULE"), nil // RULE is accepted and never held
	}
	return f.publicHolds(obj, privs), nil
}

// privilegeRole reads the role argument: the session's user, or PUBLIC
// (written public); another name is 42704. An oid is taken as is: one that
// is not the user's holds no privilege.
func privilegeRole(c Catalog, role any) (public bool, err error) {
	switch r := role.(type) {
	case string:
		switch r {
		case c.User():
			return false, nil
		case "public":
			return true, nil
		}
		return false, pgerr.Errorf(pgerr.UndefinedObject, "role %q does not exist", r)
	case int64:
		return r != superuserOID, nil
	}
	return false, nil
}

// superuserOID is the session user's oid in pg_roles (PostgreSQL's
// bootstrap superuser's).
const superuserOID = 10

// privilegeList splits a privilege list as PostgreSQL does: comma
// separated, each word trimmed and compared without case, optionally
// followed by exactly " WITH GRANT OPTION" (or, for a role, " WITH ADMIN
// OPTION").
func privilegeList(s string, allowed []string) ([]string, error) {
	var out []string
	for _, chunk := range strings.Split(s, ",") {
		chunk = strings.TrimSpace(chunk)
		word := strings.ToUpper(chunk)
		for _, suffix := range []string{" WITH GRANT OPTION", " WITH ADMIN OPTION"} {
			if base, ok := strings.CutSuffix(word, suffix); ok {
				word = base
				break
			}
		}
		found := false
		for _, p := range allowed {
			found = found || p == word
		}
		if !found {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", chunk)
		}
		out = append(out, word)
	}
	return out, nil
}

// publicHolds is whether PUBLIC holds any of privs on obj.
func (f privilegeFunc) publicHolds(obj privObject, privs []string) bool {
	if f.public == nil {
		return false
	}
	for _, p := range privs {
		if f.public(obj, p) {
			return true
		}
	}
	return false
}

// lookupRelation finds a relation by name (regclass input) or oid; want
// "sequence" refuses one that is not (magmalake has none).
func lookupRelation(want string) func(ctx context.Context, c Catalog, obj any) (privObject, bool, error) {
	return func(ctx context.Context, c Catalog, obj any) (privObject, bool, error) {
		oid, byName := obj.(int64)
		if !byName {
			var err error
			if oid, err = c.RegOID(ctx, RegClass, obj.(string)); err != nil {
				return privObject{}, false, err
			}
		}
		r, ok, err := c.RelationByOID(ctx, oid)
		if err != nil || !ok {
			return privObject{}, false, err
		}
		if want == "sequence" {
			return privObject{}, false, pgerr.Errorf(pgerr.WrongObjectType, "%q is not a sequence", r.Name)
		}
		return privObject{name: r.Name, catalog: r.Catalog, columns: r.Columns}, true, nil
	}
}

// columnExists checks has_column_privilege's column: a name must be one
// of the relation's (42703), a number that is none is NULL.
func columnExists(obj privObject, col any) (bool, error) {
	switch c := col.(type) {
	case string:
		for _, name := range obj.columns {
			if name == c {
				return true, nil
			}
		}
		return false, pgerr.Errorf(pgerr.UndefinedColumn, "column %q of relation %q does not exist", c, obj.name)
	case int64:
		return c >= 1 && c <= int64(len(obj.columns)), nil
	}
	return false, nil
}

func lookupSchema(ctx context.Context, c Catalog, obj any) (privObject, bool, error) {
	name, byName := obj.(string)
	if !byName {
		var err error
		if name, err = c.RegName(ctx, RegNamespace, obj.(int64)); err != nil || name == strconv.FormatInt(obj.(int64), 10) {
			return privObject{}, false, err
		}
	} else if _, err := c.RegOID(ctx, RegNamespace, quoteRegName(name)); err != nil {
		return privObject{}, false, err
	}
	return privObject{name: name, catalog: name == "pg_catalog" || name == "information_schema"}, true, nil
}

func lookupDatabase(_ context.Context, c Catalog, obj any) (privObject, bool, error) {
	switch d := obj.(type) {
	case string:
		if d != c.Database() {
			return privObject{}, false, pgerr.Errorf(pgerr.InvalidCatalogName, "database %q does not exist", d)
		}
	case int64:
		if d != c.DatabaseOID() {
			return privObject{}, false, nil
		}
	}
	return privObject{name: c.Database()}, true, nil
}

// lookupReg finds a function (regprocedure input: name(types)) or a type
// by name, or checks that an oid is one.
func lookupReg(kind RegKind) func(ctx context.Context, c Catalog, obj any) (privObject, bool, error) {
	return func(ctx context.Context, c Catalog, obj any) (privObject, bool, error) {
		if name, ok := obj.(string); ok {
			_, err := c.RegOID(ctx, kind, name)
			return privObject{name: name}, err == nil, err
		}
		oid := obj.(int64)
		name, err := c.RegName(ctx, kind, oid)
		if err != nil || name == strconv.FormatInt(oid, 10) {
			return privObject{}, false, err
		}
		return privObject{name: name}, true, nil
	}
}

// lookupNamed finds one of a fixed set of objects (what pg_language and
// pg_tablespace hold) by name or oid.
func lookupNamed(what string, objects map[string]int64) func(ctx context.Context, c Catalog, obj any) (privObject, bool, error) {
	return func(_ context.Context, _ Catalog, obj any) (privObject, bool, error) {
		switch o := obj.(type) {
		case string:
			if _, ok := objects[o]; !ok {
				return privObject{}, false, pgerr.Errorf(pgerr.UndefinedObject, "%s %q does not exist", what, o)
			}
			return privObject{name: o}, true, nil
		case int64:
			for name, oid := range objects {
				if oid == o {
					return privObject{name: name}, true, nil
				}
			}
		}
		return privObject{}, false, nil
	}
}

// lookupRole is pg_has_role's role: the session's user is the only one.
func lookupRole(_ context.Context, c Catalog, obj any) (privObject, bool, error) {
	switch r := obj.(type) {
	case string:
		if r != c.User() {
			return privObject{}, false, pgerr.Errorf(pgerr.UndefinedObject, "role %q does not exist", r)
		}
	case int64:
		if r != superuserOID {
			return privObject{}, false, nil
		}
	}
	return privObject{name: c.User()}, true, nil
}

// quoteRegName quotes a schema name for regnamespace input, which would
// fold it to lower case: has_schema_privilege takes the name as written.
func quoteRegName(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
