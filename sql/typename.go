package sql

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// ParseTypeName resolves a PostgreSQL type name as written in DDL or a cast
// ("int4", "numeric(10,2)", "timestamp with time zone", "varchar(20)").
// Unknown names give 42704, as PostgreSQL does.
func ParseTypeName(name string) (Type, error) {
	if strings.Contains(name, `"`) {
		plain, err := unquoteTypeName(name)
		if err != nil {
			return Unknown, err
		}
		name = plain
	}
	n := strings.Join(strings.Fields(strings.ToLower(strings.TrimSpace(name))), " ")
	n = strings.TrimPrefix(n, "pg_catalog.")
	if strings.HasSuffix(n, "]") && strings.Contains(n, "[") {
		return parseArrayTypeName(name, n)
	}
	if n == "interval" || strings.HasPrefix(n, "interval ") || strings.HasPrefix(n, "interval(") {
		// The fields qualifier (interval day to second) tells what a bare
		// number counts on input; the type itself is one.
		return Type{Kind: KindInterval, Fields: strings.TrimSpace(strings.TrimPrefix(n, "interval"))}, nil
	}
	base, args, err := splitTypeArgs(n)
	if err != nil {
		return Unknown, err
	}
	switch base {
	case "boolean", "bool":
		return Bool, nil
	case "smallint", "int2":
		return Int16, nil
	case "integer", "int", "int4":
		return Int32, nil
	case "bigint", "int8":
		return Int64, nil
	case "real", "float4":
		return Float32, nil
	case "double precision", "float8", "float", "double":
		return Float64, nil
	case "numeric", "decimal":
		switch len(args) {
		case 0:
			return Numeric(0, 0), nil
		case 1:
			return checkNumeric(args[0], 0)
		case 2:
			return checkNumeric(args[0], args[1])
		}
	case "text":
		return Text, nil
	case "name":
		return Name, nil
	case "varchar", "character varying", "char", "character", "bpchar":
		bp := base != "varchar" && base != "character varying"
		if len(args) == 1 {
			if args[0] < 1 {
				return Unknown, pgerr.Errorf(pgerr.InvalidParameterValue, "length for type %s must be at least 1", base)
			}
			return Type{Kind: KindVarchar, Length: args[0], Bpchar: bp}, nil
		}
		if len(args) == 0 {
			// char and character alone are char(1), as in PostgreSQL.
			if bp && base != "bpchar" {
				return Bpchar(1), nil
			}
			return Type{Kind: KindVarchar, Bpchar: bp}, nil
		}
	case "bytea":
		return Bytea, nil
	case "date":
		return Date, nil
	case "time", "time without time zone":
		return Time, nil
	case "timestamp", "timestamp without time zone":
		return Timestamp, nil
	case "timestamptz", "timestamp with time zone":
		return TimestampTZ, nil
	case "uuid":
		return UUID, nil
	case "json", "jsonb":
		return JSON, nil
	case "oid", "regrole":
		return OID, nil
	case "regclass":
		return Type{Kind: KindOID, Reg: RegClass}, nil
	case "regtype":
		return Type{Kind: KindOID, Reg: RegType}, nil
	case "regnamespace":
		return Type{Kind: KindOID, Reg: RegNamespace}, nil
	case "regproc":
		return Type{Kind: KindOID, Reg: RegProc}, nil
	case "regprocedure":
		return Type{Kind: KindOID, Reg: RegProcedure}, nil
	case `"char"`, "aclitem", "pg_node_tree", "xid", "anyarray":
		// Carried as their text.
		return Text, nil
	case "int2vector":
		return ArrayOf(Int16), nil
	case "oidvector":
		return ArrayOf(OID), nil
	case "record":
		return Type{Kind: KindRecord}, nil
	default:
		return Unknown, pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", name)
	}
	return Unknown, pgerr.Errorf(pgerr.SyntaxError, "invalid type modifier for type %s", base)
}

func checkNumeric(p, s int) (Type, error) {
	if p < 1 || p > 1000 {
		return Unknown, pgerr.Errorf(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
	}
	if s < 0 || s > p {
		return Unknown, pgerr.Errorf(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", s, p)
	}
	return Numeric(p, s), nil
}

// splitTypeArgs splits "numeric(10, 2)" into "numeric" and [10 2].
func splitTypeArgs(n string) (string, []int, error) {
	open := strings.IndexByte(n, '(')
	if open < 0 {
		return n, nil, nil
	}
	closeIdx := strings.LastIndexByte(n, ')')
	if closeIdx < open {
		return "", nil, pgerr.Errorf(pgerr.SyntaxError, "syntax error in type name %q", n)
	}
	base := strings.TrimSpace(n[:open])
	// "timestamp(3) with time zone": the precision is accepted and ignored.
	rest := strings.TrimSpace(n[closeIdx+1:])
	var args []int
	for _, a := range strings.Split(n[open+1:closeIdx], ",") {
		v, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil {
			return "", nil, pgerr.Errorf(pgerr.SyntaxError, "invalid type modifier %q", a)
		}
		args = append(args, v)
	}
	if rest != "" {
		return base + " " + rest, nil, nil
	}
	if base == "timestamp" || base == "timestamptz" || base == "time" {
		return base, nil, nil
	}
	return base, args, nil
}

// parseArrayTypeName reads elem[] (and elem[n], whose bound PostgreSQL
// ignores too); n is name lower-cased.
func parseArrayTypeName(name, n string) (Type, error) {
	open := strings.IndexByte(n, '[')
	base := strings.TrimSpace(n[:open])
	for _, part := range strings.SplitAfter(n[open:], "]") {
		p := strings.TrimSpace(part)
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "[") || !strings.HasSuffix(p, "]") {
			return Unknown, pgerr.Errorf(pgerr.SyntaxError, "syntax error in type name %q", name)
		}
		if _, err := strconv.Atoi(strings.TrimSpace(p[1 : len(p)-1])); err != nil && strings.TrimSpace(p[1:len(p)-1]) != "" {
			return Unknown, pgerr.Errorf(pgerr.SyntaxError, "syntax error in type name %q", name)
		}
	}
	elem, err := ParseTypeName(base)
	if err != nil {
		return Unknown, err
	}
	if elem.Kind == KindArray || elem.Kind == KindRecord {
		return Unknown, pgerr.Errorf(pgerr.FeatureNotSupported, "type %s is not supported", name)
	}
	return ArrayOf(elem), nil
}

// DateTimeRound is what a time or timestamp type name's precision rounds
// to, in microseconds ("timestamp(0)" 1000000, "time(3)" 1000); 0 when the
// name has none or keeps all six digits (a larger one PostgreSQL reduces
// to 6, with a warning).
func DateTimeRound(name string) int64 {
	n := strings.Join(strings.Fields(strings.ToLower(strings.TrimSpace(name))), " ")
	n = strings.TrimPrefix(n, "pg_catalog.")
	open, closeIdx := strings.IndexByte(n, '('), strings.IndexByte(n, ')')
	if open < 0 || closeIdx < open {
		return 0
	}
	switch strings.TrimSpace(n[:open]) {
	case "timestamp", "timestamptz", "time":
	default:
		return 0
	}
	p, err := strconv.Atoi(strings.TrimSpace(n[open+1 : closeIdx]))
	if err != nil || p < 0 || p >= 6 {
		return 0
	}
	r := int64(1)
	for range 6 - p {
		r *= 10
	}
	return r
}

// withPrecision writes a rounding cast's precision into its type's name:
// "timestamp(0) without time zone", "time(3) without time zone".
func withPrecision(name string, round int64) string {
	if round == 0 {
		return name
	}
	p := 6
	for r := round; r > 1; r /= 10 {
		p--
	}
	for _, base := range []string{"timestamp", "time"} {
		if rest, ok := strings.CutPrefix(name, base); ok {
			return base + "(" + strconv.Itoa(p) + ")" + rest
		}
	}
	return name
}
