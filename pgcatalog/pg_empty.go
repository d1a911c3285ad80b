package pgcatalog

// Relations for objects magmalake does not have (indexes, constraints,
// defaults, comments, policies, publications, ...): clients join them, so
// they exist, always empty.

func addPgCatalogEmpty(m relSet) {
	// The functions' comments are pg_proc's (pg_proc.go); nothing else has one.
	m.add("pg_catalog", "pg_description", 2609, "objoid oid, classoid oid, objsubid int4, description text", procDescriptionRows)
	m.add("pg_catalog", "pg_shdescription", 2396, "objoid oid, classoid oid, description text", none)
	m.add("pg_catalog", "pg_index", 2610, `indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2,
		indisunique bool, indnullsnotdistinct bool, indisprimary bool, indisexclusion bool,
		indimmediate bool, indisclustered bool, indisvalid bool, indcheckxmin bool, indisready bool,
		indislive bool, indisreplident bool, indkey int2vector, indcollation oidvector,
		indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree`, none)
	m.add("pg_catalog", "pg_constraint", 2606, `oid oid, conname name, connamespace oid, contype char,
		condeferrable bool, condeferred bool, convalidated bool, conrelid oid, contypid oid,
		conindid oid, conparentid oid, confrelid oid, confupdtype char, confdeltype char,
		confmatchtype char, conislocal bool, coninhcount int4, connoinherit bool, conkey int2[],
		confkey int2[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols int2[],
		conexclop oid[], conbin pg_node_tree`, none)
	m.add("pg_catalog", "pg_attrdef", 2604, "oid oid, adrelid oid, adnum int2, adbin pg_node_tree", attrdefRows)
	m.add("pg_catalog", "pg_inherits", 2611, "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool", none)
	m.add("pg_catalog", "pg_policy", 3256, `oid oid, polname name, polrelid oid, polcmd char, polpermissive bool,
		polroles oid[], polqual pg_node_tree, polwithcheck pg_node_tree`, none)
	m.add("pg_catalog", "pg_statistic_ext", 3381, `oid oid, stxrelid oid, stxname name, stxnamespace oid,
		stxowner oid, stxstattarget int4, stxkeys int2vector, stxkind char[], stxexprs pg_node_tree`, none)
	m.add("pg_catalog", "pg_publication", 6104, `oid oid, pubname name, pubowner oid, puballtables bool,
		pubinsert bool, pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool`, none)
	m.add("pg_catalog", "pg_publication_namespace", 6237, "oid oid, pnpubid oid, pnnspid oid", none)
	m.add("pg_catalog", "pg_publication_rel", 6106, "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector", none)
	m.add("pg_catalog", "pg_enum", 3501, "oid oid, enumtypid oid, enumsortorder float4, enumlabel name", none)
	m.add("pg_catalog", "pg_sequence", 2224, `seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8,
		seqmax int8, seqmin int8, seqcache int8, seqcycle bool`, none)
	m.add("pg_catalog", "pg_matviews", 0, `schemaname name, matviewname name, matviewowner name, tablespace name,
		hasindexes bool, ispopulated bool, definition text`, none)
	m.add("pg_catalog", "pg_indexes", 0, "schemaname name, tablename name, indexname name, tablespace name, indexdef text", none)
	m.add("pg_catalog", "pg_trigger", 2620, `oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid,
		tgtype int2, tgenabled char, tgisinternal bool, tgconstrrelid oid, tgconstrindid oid,
		tgconstraint oid, tgdeferrable bool, tginitdeferred bool, tgnargs int2, tgattr int2vector,
		tgargs bytea, tgqual pg_node_tree, tgoldtable name, tgnewtable name`, none)
	m.add("pg_catalog", "pg_rewrite", 2618, `oid oid, rulename name, ev_class oid, ev_type char, ev_enabled char,
		is_instead bool, ev_qual pg_node_tree, ev_action pg_node_tree`, none)
	m.add("pg_catalog", "pg_extension", 3079, `oid oid, extname name, extowner oid, extnamespace oid,
		extrelocatable bool, extversion text, extconfig oid[], extcondition text[]`, none)
	m.add("pg_catalog", "pg_depend", 2608, `classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid,
		refobjsubid int4, deptype char`, none)
	m.add("pg_catalog", "pg_foreign_table", 3118, "ftrelid oid, ftserver oid, ftoptions text[]", none)
	m.add("pg_catalog", "pg_partitioned_table", 3350, `partrelid oid, partstrat char, partnatts int2,
		partdefid oid, partattrs int2vector, partclass oidvector, partcollation oidvector,
		partexprs pg_node_tree`, none)
	m.add("pg_catalog", "pg_auth_members", 1261, "roleid oid, member oid, grantor oid, admin_option bool", none)
	m.add("pg_catalog", "pg_conversion", 2607, `oid oid, conname name, connamespace oid, conowner oid,
		conforencoding int4, contoencoding int4, conproc regproc, condefault bool`, none)
	// pg_cast is empty rather than PostgreSQL's 230 built-in casts: most
	// name types magmalake lacks (money, bit, inet, ...), and the contexts
	// (implicit, in assignment) of the rest are PostgreSQL's, not a promise
	// of ours; \dC lists none, as for casts no one created.
	m.add("pg_catalog", "pg_cast", 2605, `oid oid, castsource oid, casttarget oid, castfunc oid,
		castcontext char, castmethod char`, none)
	m.add("pg_catalog", "pg_operator", 2617, `oid oid, oprname name, oprnamespace oid, oprowner oid,
		oprkind char, oprcanmerge bool, oprcanhash bool, oprleft oid, oprright oid, oprresult oid,
		oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc`, none)
	m.add("pg_catalog", "pg_foreign_data_wrapper", 2328, `oid oid, fdwname name, fdwowner oid,
		fdwhandler oid, fdwvalidator oid, fdwacl aclitem[], fdwoptions text[]`, none)
	m.add("pg_catalog", "pg_foreign_server", 1417, `oid oid, srvname name, srvowner oid, srvfdw oid,
		srvtype text, srvversion text, srvacl aclitem[], srvoptions text[]`, none)
	m.add("pg_catalog", "pg_event_trigger", 3466, `oid oid, evtname name, evtevent name, evtowner oid,
		evtfoid oid, evtenabled char, evttags text[]`, none)
	// No text search: no configurations (PostgreSQL's initdb makes 29).
	m.add("pg_catalog", "pg_ts_config", 3602, "oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid", none)
}
