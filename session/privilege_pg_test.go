package session

import "testing"

// The has_*_privilege family and pg_has_role against PostgreSQL 15 (issue
// 48, item 11): an object named that does not exist is an error (42P01,
// 3F000, 3D000, 42704, 42883, 42703), an oid that names nothing is NULL, a
// privilege word the object does not have is 22023, and a known role (the
// session's, or PUBLIC with PostgreSQL's default grants) gets an answer.
// has_table_privilege(current_user, 'nosuch', 'select') answered true.
func TestPrivilegeFunctionsLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	runScriptLikePostgres(t, s, conn, []string{
		"CREATE TABLE pt (a int, b text)%s",
		"CREATE VIEW pv AS SELECT a FROM pt",
		"CREATE SCHEMA ps",
		"CREATE TABLE ps.qt (x int)%s",
	}, "")
	for _, e := range []string{
		// tables
		"has_table_privilege(current_user, 'nosuch', 'select')",
		"has_table_privilege('nosuch', 'select')",
		"has_table_privilege('pt', 'select')",
		"has_table_privilege('PT', 'select')",
		"has_table_privilege('\"PT\"', 'select')",
		"has_table_privilege('public.pt', 'SELECT, insert WITH GRANT OPTION')",
		"has_table_privilege('ps.qt', ' update ')",
		"has_table_privilege('nosuch.pt', 'select')",
		"has_table_privilege('ps.nosuch', 'select')",
		"has_table_privilege('pv', 'select')",
		"has_table_privilege('pg_class', 'select')",
		"has_table_privilege('pt', 'sel')",
		"has_table_privilege('pt', '')",
		"has_table_privilege('pt', 'select,')",
		"has_table_privilege('pt', 'usage')",
		"has_table_privilege('pt', 'select  with grant option')",
		"has_table_privilege('pt', 'rule')",
		"has_table_privilege('pt', 'rule, select')",
		"has_table_privilege('nosuch', 'bogus')",
		"has_table_privilege('nouser', 'pt', 'select')",
		"has_table_privilege('nouser', 'nosuch', 'bogus')",
		"has_table_privilege(current_user, 'nosuch', 'bogus')",
		"has_table_privilege('public', 'pt', 'select')",
		"has_table_privilege('public', 'pg_class', 'select')",
		"has_table_privilege('public', 'pg_class', 'insert')",
		"has_table_privilege('PUBLIC', 'pt', 'select')",
		"has_table_privilege(99999999::oid, 'select')",
		"has_table_privilege('pt'::regclass, 'select')",
		"has_table_privilege(current_user, 'pt'::regclass, 'select')",
		"has_table_privilege(12345::oid, 'pt', 'select')",
		"has_table_privilege(NULL, 'select')",
		"has_table_privilege('pt', NULL)",
		// columns
		"has_column_privilege('pt', 'a', 'select')",
		"has_column_privilege('pt', 'nosuch', 'select')",
		"has_column_privilege('pt', 'A', 'select')",
		"has_column_privilege('nosuch', 'a', 'select')",
		"has_column_privilege('pt', 1::int2, 'select')",
		"has_column_privilege('pt', 5::int2, 'select')",
		"has_column_privilege('pt', 0::int2, 'select')",
		"has_column_privilege('pt', 'a', 'delete')",
		"has_column_privilege(current_user, 'pt', 'b', 'update, references')",
		"has_column_privilege(99999::oid, 'a', 'select')",
		"has_any_column_privilege('pt', 'select')",
		"has_any_column_privilege('nosuch', 'select')",
		"has_any_column_privilege('pt', 'delete')",
		// schemas, databases
		"has_schema_privilege('nosuch', 'usage')",
		"has_schema_privilege('public', 'usage')",
		"has_schema_privilege('ps', 'create')",
		"has_schema_privilege('PS', 'create')",
		"has_schema_privilege('public', 'select')",
		"has_schema_privilege('nosuch', 'bogus')",
		"has_schema_privilege(current_user, 'public', 'CREATE')",
		"has_schema_privilege('public', 'public', 'usage')",
		"has_schema_privilege('public', 'public', 'create')",
		"has_schema_privilege('public', 'pg_catalog', 'usage')",
		"has_schema_privilege('public', 'ps', 'usage')",
		"has_schema_privilege(99999::oid, 'usage')",
		"has_database_privilege('nosuch', 'connect')",
		"has_database_privilege(current_database(), 'connect')",
		"has_database_privilege(current_database(), 'temp, temporary, create')",
		"has_database_privilege(current_database(), 'select')",
		"has_database_privilege('public', current_database(), 'connect')",
		"has_database_privilege('public', current_database(), 'create')",
		"has_database_privilege(99999::oid, 'connect')",
		// functions, sequences, types, languages, tablespaces, roles
		"has_function_privilege('abs(integer)', 'execute')",
		"has_function_privilege('nosuch(integer)', 'execute')",
		"has_function_privilege('abs', 'execute')",
		"has_function_privilege('abs(integer)', 'select')",
		"has_function_privilege('public', 'abs(integer)', 'execute')",
		"has_function_privilege(99999::oid, 'execute')",
		"has_sequence_privilege('nosuch', 'usage')",
		"has_sequence_privilege('pt', 'usage')",
		"has_sequence_privilege('pt'::regclass, 'usage')",
		"has_sequence_privilege(99999::oid, 'usage')",
		"has_type_privilege('int4', 'usage')",
		"has_type_privilege('nosuch', 'usage')",
		"has_type_privilege('int4', 'select')",
		"has_type_privilege(99999::oid, 'usage')",
		"has_language_privilege('sql', 'usage')",
		"has_language_privilege('nosuch', 'usage')",
		"has_tablespace_privilege('pg_default', 'create')",
		"has_tablespace_privilege('nosuch', 'create')",
		"pg_has_role(current_user, 'member')",
		"pg_has_role(current_user, 'usage with admin option')",
		"pg_has_role(current_user, 'select')",
		"pg_has_role('nosuch', 'member')",
		"pg_has_role(current_user, 'nosuch', 'member')",
	} {
		compareStatement(t, s, conn, "SELECT "+e)
	}
	// regclass and regprocedure input, which the functions read names with.
	for _, q := range []string{"SELECT 'nosuch.pt'::regclass", "SELECT 'abs'::regprocedure", "SELECT 'ps.nosuch'::regclass"} {
		compareStatement(t, s, conn, q)
	}
}
