package pgcatalog

// The pg_catalog relations that describe schemas, tables, columns and types.

func addPgCatalog(m relSet) {
	m.add("pg_catalog", "pg_namespace", 2615, "oid oid, nspname name, nspowner oid, nspacl aclitem[]", namespaceRows)
	m.add("pg_catalog", "pg_class", 1259, `oid oid, relname name, relnamespace oid, reltype oid, reloftype oid,
		relowner oid, relam oid, relfilenode oid, reltablespace oid, relpages int4, reltuples float4,
		relallvisible int4, reltoastrelid oid, relhasindex bool, relisshared bool, relpersistence char,
		relkind char, relnatts int2, relchecks int2, relhasrules bool, relhastriggers bool,
		relhassubclass bool, relrowsecurity bool, relforcerowsecurity bool, relispopulated bool,
		relreplident char, relispartition bool, relrewrite oid, relfrozenxid xid, relminmxid xid,
		relacl aclitem[], reloptions text[], relpartbound pg_node_tree`, classRows)
	m.add("pg_catalog", "pg_attribute", 1249, `attrelid oid, attname name, atttypid oid, attstattarget int4,
		attlen int2, attnum int2, attndims int4, attcacheoff int4, atttypmod int4, attbyval bool,
		attalign char, attstorage char, attcompression char, attnotnull bool, atthasdef bool,
		atthasmissing bool, attidentity char, attgenerated char, attisdropped bool, attislocal bool,
		attinhcount int4, attcollation oid, attacl aclitem[], attoptions text[], attfdwoptions text[],
		attmissingval anyarray`, attributeRows)
	m.add("pg_catalog", "pg_type", 1247, `oid oid, typname name, typnamespace oid, typowner oid, typlen int2,
		typbyval bool, typtype char, typcategory char, typispreferred bool, typisdefined bool,
		typdelim char, typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc,
		typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc,
		typanalyze regproc, typalign char, typstorage char, typnotnull bool, typbasetype oid,
		typtypmod int4, typndims int4, typcollation oid, typdefaultbin pg_node_tree, typdefault text,
		typacl aclitem[]`, typeRows)
	m.add("pg_catalog", "pg_am", 2601, "oid oid, amname name, amhandler regproc, amtype char", amRows)
	m.add("pg_catalog", "pg_database", 1262, `oid oid, datname name, datdba oid, encoding int4,
		datlocprovider char, datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid xid,
		datminmxid xid, dattablespace oid, datcollate text, datctype text, daticulocale text,
		datcollversion text, datacl aclitem[]`, databaseRows)
	m.add("pg_catalog", "pg_roles", 0, `rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool,
		rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text,
		rolvaliduntil timestamptz, rolbypassrls bool, rolconfig text[], oid oid`, roleRows)
	m.add("pg_catalog", "pg_user", 0, `usename name, usesysid oid, usecreatedb bool, usesuper bool,
		userepl bool, usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]`, userRows)
	m.add("pg_catalog", "pg_tables", 0, `schemaname name, tablename name, tableowner name, tablespace name,
		hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool`, tablesRows)
	m.add("pg_catalog", "pg_views", 0, "schemaname name, viewname name, viewowner name, definition text", viewsRows)
	m.add("pg_catalog", "pg_settings", 0, `name text, setting text, unit text, category text,
		short_desc text, extra_desc text, context text, vartype text, source text, min_val text,
		max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline int4,
		pending_restart bool`, settingRows)
	m.add("pg_catalog", "pg_collation", 3456, `oid oid, collname name, collnamespace oid, collowner oid,
		collprovider char, collisdeterministic bool, collencoding int4, collcollate text, collctype text,
		colliculocale text, collversion text`, collationRows)
	m.add("pg_catalog", "pg_tablespace", 1213, "oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]",
		func(*snapshot) [][]any {
			return [][]any{{int64(1663), "pg_default", oidSuperuser, nil, nil}, {int64(1664), "pg_global", oidSuperuser, nil, nil}}
		})
	m.add("pg_catalog", "pg_proc", 1255, `oid oid, proname name, pronamespace oid, proowner oid, prolang oid,
		procost float4, prorows float4, provariadic oid, prosupport regproc, prokind char, prosecdef bool,
		proleakproof bool, proisstrict bool, proretset bool, provolatile char, proparallel char,
		pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector,
		proallargtypes oid[], proargmodes char[], proargnames text[], proargdefaults pg_node_tree,
		protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[],
		proacl aclitem[]`, procRows)
}

func namespaceRows(s *snapshot) [][]any {
	var out [][]any
	for _, ns := range s.namespaces {
		out = append(out, []any{ns.oid, ns.name, oidSuperuser, nil})
	}
	return out
}

func classRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		kind, am, tuples := "r", oidHeapAM, float64(t.tuples)
		if t.view != "" {
			kind, am, tuples = "v", int64(0), -1
		}
		out = append(out, []any{t.oid, t.name, t.ns.oid, int64(0), int64(0),
			oidSuperuser, am, t.oid, int64(0), int64(0), tuples,
			int64(0), int64(0), false, false, "p",
			kind, int64(len(t.cols)), int64(0), t.view != "", false,
			false, false, false, true,
			"d", false, int64(0), "0", "0",
			nil, nil, nil})
	}
	return out
}

func attributeRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		for i, c := range t.cols {
			pt := columnType(c.t)
			coll := int64(0)
			if pt.coll != 0 {
				coll = collDefault
			}
			out = append(out, []any{t.oid, c.name, pt.oid, int64(-1),
				pt.length, int64(i + 1), int64(0), int64(-1), int64(c.t.Typmod()), pt.byVal,
				pt.align, pt.storage(), "", c.notNull, c.def != nil,
				false, "", "", false, true,
				int64(0), coll, nil, nil, nil,
				nil})
		}
	}
	return out
}

func typeRows(*snapshot) [][]any {
	var out [][]any
	for _, t := range pgTypes {
		preferred := t.name == "text" || t.name == "float8" || t.name == "timestamptz" || t.name == "bool" || t.name == "oid"
		typtype := "b"
		if t.category == "P" || t.name == "unknown" {
			typtype = "p" // pseudo-types
		}
		out = append(out, []any{t.oid, t.name, oidPgCatalog, oidSuperuser, t.length,
			t.byVal, typtype, t.category, preferred, true,
			",", int64(0), int64(0), int64(0), t.array, procByName(t.input),
			procByName(t.output), procByName(t.receive()), procByName(t.send()), int64(0), int64(0),
			int64(0), t.align, t.storage(), false, int64(0),
			int64(-1), int64(0), t.coll, nil, nil,
			nil})
	}
	return out
}

func amRows(*snapshot) [][]any {
	return [][]any{
		{oidHeapAM, "heap", procByName("heap_tableam_handler"), "t"},
		{int64(403), "btree", procByName("bthandler"), "i"},
	}
}

func databaseRows(s *snapshot) [][]any {
	return [][]any{{oidDatabase, s.env.Database, oidSuperuser, encodingUTF8,
		"c", false, true, int64(-1), "0",
		"1", int64(1663), "C.UTF-8", "C.UTF-8", nil,
		nil, nil}}
}

func roleRows(s *snapshot) [][]any {
	return [][]any{{s.env.User, true, true, true,
		true, true, true, int64(-1), "********",
		nil, true, nil, oidSuperuser}}
}

func userRows(s *snapshot) [][]any {
	return [][]any{{s.env.User, oidSuperuser, true, true,
		true, true, "********", nil, nil}}
}

func tablesRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		if t.view == "" {
			out = append(out, []any{t.ns.name, t.name, s.env.User, nil, false, false, false, false})
		}
	}
	return out
}

func viewsRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		if t.view != "" {
			out = append(out, []any{t.ns.name, t.name, s.env.User, t.view})
		}
	}
	return out
}

func settingRows(s *snapshot) [][]any {
	if s.env.Settings == nil {
		return nil
	}
	var out [][]any
	for _, kv := range s.env.Settings() {
		out = append(out, []any{kv[0], kv[1], nil, "Ungrouped", "", nil, "user", "string", "default", nil,
			nil, nil, kv[1], kv[1], nil, nil, false})
	}
	return out
}

func collationRows(*snapshot) [][]any {
	row := func(oid int64, name, provider string) []any {
		return []any{oid, name, oidPgCatalog, oidSuperuser, provider, true, int64(-1), nil, nil, nil, nil}
	}
	return [][]any{row(collDefault, "default", "d"), row(950, "C", "c"), row(951, "POSIX", "c")}
}
