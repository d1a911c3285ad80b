package pgcatalog

import (
	"sort"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// pg_proc's rows are the functions catalog clients look for by name: sql's
// catalog functions, a few others, and the I/O and handler functions
// pg_type and pg_am name (their regproc columns hold these OIDs). None
// records a signature; regproc and regprocedure read and print these names.

// procOIDBase is the first pg_proc OID here (below PostgreSQL's user range).
const procOIDBase int64 = 5000

// procs are pg_proc's names in OID order; built once, never changed.
var procs = buildProcs()

func buildProcs() []string {
	seen := map[string]bool{}
	add := func(names ...string) {
		for _, n := range names {
			seen[n] = true
		}
	}
	add(sql.CatalogFunctionNames()...)
	add("array_to_string", "array_upper", "array_lower", "array_length", "cardinality",
		"quote_ident", "lower", "upper", "length", "replace", "concat",
		"array_in", "array_out", "heap_tableam_handler", "bthandler")
	for _, t := range pgTypes {
		add(t.input, t.output, t.name+"recv", t.name+"send")
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// procByName is a function's pg_proc OID, 0 (regproc's "-") for none.
func procByName(name string) int64 {
	if i := sort.SearchStrings(procs, name); i < len(procs) && procs[i] == name {
		return procOIDBase + int64(i)
	}
	return 0
}

// procName prints an OID as regproc ("-" for 0) or regprocedure does.
func procName(kind sql.RegKind, oid int64) string {
	if oid == 0 {
		return "-"
	}
	i := oid - procOIDBase
	if i < 0 || i >= int64(len(procs)) {
		return strconv.FormatInt(oid, 10)
	}
	if kind == sql.RegProcedure {
		return procs[i] + "()"
	}
	return procs[i]
}

// procOID reads regproc ("name") or regprocedure ("name()") input; a
// function outside pg_catalog or with arguments is none here (42883).
func procOID(kind sql.RegKind, in string) (int64, error) {
	name := in
	if kind == sql.RegProcedure {
		var args string
		name, args, _ = strings.Cut(in, "(")
		if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(args), ")")) != "" {
			return 0, sql.UndefinedReg(kind, in)
		}
	}
	schema, fn := sql.SplitQualifiedName(strings.TrimSpace(name))
	if schema == "" || schema == "pg_catalog" {
		if oid := procByName(fn); oid != 0 {
			return oid, nil
		}
	}
	return 0, sql.UndefinedReg(kind, in)
}
