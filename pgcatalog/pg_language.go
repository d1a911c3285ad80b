package pgcatalog

// pg_language: the three languages built into every PostgreSQL. There is no
// plpgsql (PostgreSQL's initdb installs it as an extension; magmalake runs
// no procedural code), so \dL, which lists procedural languages only, lists
// none, and \dx lists no extensions.

func addPgLanguage(m relSet) {
	m.add("pg_catalog", "pg_language", 2612, `oid oid, lanname name, lanowner oid, lanispl bool,
		lanpltrusted bool, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl aclitem[]`, languageRows)
}

// Built-in language OIDs (pg_proc.prolang).
const (
	langInternal int64 = 12
	langC        int64 = 13
	langSQL      int64 = 14
)

func languageRows(*snapshot) [][]any {
	row := func(oid int64, name string, trusted bool, validator int64) []any {
		return []any{oid, name, oidSuperuser, false, trusted, int64(0), int64(0), validator, nil}
	}
	return [][]any{row(langInternal, "internal", false, 2246), row(langC, "c", false, 2247), row(langSQL, "sql", true, 2248)}
}
