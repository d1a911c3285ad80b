package sql

// CreateSchema is CREATE SCHEMA.
type CreateSchema struct {
	stmtText
	Name        string
	IfNotExists bool
}

// DropSchema is DROP SCHEMA.
type DropSchema struct {
	stmtText
	Name     string
	IfExists bool
	Cascade  bool
}

// ColumnDef is one column of CREATE TABLE.
type ColumnDef struct {
	Name    string
	Type    Type
	NotNull bool
	// Default is DEFAULT's expression (nil: none): a constant, stored as
	// the Iceberg column's write-default (and initial-default when added).
	Default Syntax
	// LikeDefault is the write-default of the column LIKE ... INCLUDING
	// DEFAULTS copies this one from, as its Iceberg field holds it (nil:
	// none).
	LikeDefault any
}

// PartitionField is one PARTITIONED BY entry. Transform is identity, year,
// month, day, hour, bucket or truncate (Spark's plural spellings are mapped);
// Param is bucket's count or truncate's width.
type PartitionField struct {
	Transform string
	Column    string
	Param     int
}

// CreateTable is CREATE TABLE.
type CreateTable struct {
	stmtText
	Name        TableName
	IfNotExists bool
	Columns     []ColumnDef
	Partition   []PartitionField
	Properties  map[string]string
	// Query is CREATE TABLE ... AS query: the columns come from it (named
	// by ColumnNames when given) and, unless NoData, its rows fill the table.
	Query       *Select
	ColumnNames []string
	NoData      bool
	// Like is CREATE TABLE t (..., LIKE s, ...): s's columns (names, types,
	// NOT NULL, and with LikeDefaults their defaults) go in at LikeAt,
	// among Columns.
	Like         *TableName
	LikeAt       int
	LikeDefaults bool
}

// DropTable is DROP TABLE.
type DropTable struct {
	stmtText
	Name     TableName
	IfExists bool
	Purge    bool
}

// AlterTableProperties sets or resets table properties.
type AlterTableProperties struct {
	stmtText
	Name  TableName
	Set   map[string]string
	Reset []string
}

// AlterTable is ALTER TABLE [IF EXISTS] t with schema actions: columns
// added, dropped, renamed, retyped or made (not) nullable, or the table
// renamed or moved to another schema. Iceberg evolves the schema by field
// id, so no data file is rewritten.
type AlterTable struct {
	stmtText
	Name     TableName
	IfExists bool
	Actions  []AlterAction
}

// AlterKind is what one ALTER TABLE action does.
type AlterKind int

const (
	AlterAddColumn AlterKind = iota
	AlterDropColumn
	AlterRenameColumn
	AlterColumnType
	AlterSetNotNull
	AlterDropNotNull
	AlterSetDefault  // ALTER COLUMN c SET DEFAULT v (Column.Default)
	AlterDropDefault // ALTER COLUMN c DROP DEFAULT
	AlterRenameTable
	AlterSetSchema
	AlterAddPartitionField     // Spark's ADD PARTITION FIELD f [AS name]
	AlterDropPartitionField    // DROP PARTITION FIELD f|name
	AlterReplacePartitionField // REPLACE PARTITION FIELD f|name WITH f [AS name]
)

// AlterAction is one action of ALTER TABLE.
type AlterAction struct {
	Kind AlterKind
	// Column is the column added (AlterAddColumn) or the new type
	// (AlterColumnType: Column.Type).
	Column ColumnDef
	// Name is the column acted on; NewName the new column or table name,
	// or the schema of SET SCHEMA.
	Name, NewName string
	// IfExists is ADD COLUMN IF NOT EXISTS or DROP COLUMN IF EXISTS.
	IfExists bool
	// Partition is the partition field added, or the replacement; Old the
	// one dropped or replaced, named by transform (Old.Column set) or by
	// its name (Name); PartName the AS name of an added field.
	Partition, Old PartitionField
	PartName       string
}

// CreateView is CREATE [OR REPLACE] VIEW name [(columns)] AS query;
// Definition is the query as written, which the view stores.
type CreateView struct {
	stmtText
	Name       TableName
	OrReplace  bool
	Columns    []string
	Query      *Select
	Definition string
}

// DropView is DROP VIEW [IF EXISTS] name.
type DropView struct {
	stmtText
	Name     TableName
	IfExists bool
}

// AlterRef is ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG [IF NOT
// EXISTS] name [AS OF VERSION id] [RETAIN n DAYS|HOURS|MINUTES], REPLACE
// BRANCH|TAG name ..., or DROP BRANCH|TAG [IF EXISTS] name (Spark's).
type AlterRef struct {
	stmtText
	Table       TableName
	Name        string
	Tag         bool
	Create      bool // CREATE
	Replace     bool // OR REPLACE, or REPLACE
	Drop        bool
	IfNotExists bool // CREATE ... IF NOT EXISTS, DROP ... IF EXISTS
	SnapshotID  *int64
	RetainMs    int64
}

// Describe is DESCRIBE t / DESC t.
type Describe struct {
	stmtText
	Table TableName
}

// AlterExecute is ALTER TABLE t EXECUTE procedure [(name => value, ...)]
// [WHERE cond]: table maintenance (optimize, ...).
type AlterExecute struct {
	stmtText
	Table     TableName
	Procedure string
	Args      map[string]Syntax
	Where     Syntax
}

// Vacuum is VACUUM [(PURGE, VERBOSE)] [t [, ...]]; no table is every table.
type Vacuum struct {
	stmtText
	Tables  []TableName
	Purge   bool
	Verbose bool
	// Tags is what PURGE does with the tags that keep files holding deleted
	// rows: TagsRefuse (fail, naming them), TagsDrop or TagsMove (to the
	// purged current snapshot).
	Tags TagAction
}

// Analyze is ANALYZE [VERBOSE] [t [(col, ...)] [, ...]]; no table is every
// table.
type Analyze struct {
	stmtText
	Tables  []AnalyzeTarget
	Verbose bool
}

// AnalyzeTarget is a table ANALYZE names, with the columns it names (nil:
// every column).
type AnalyzeTarget struct {
	Table   TableName
	Columns []string
}

// TagAction is VACUUM (PURGE)'s treatment of tags in its way.
type TagAction int

const (
	TagsRefuse TagAction = iota
	TagsDrop             // VACUUM (PURGE, DROP_TAGS)
	TagsMove             // VACUUM (PURGE, MOVE_TAGS)
)

// ShowTable is SHOW TBLPROPERTIES t (Create false) or SHOW CREATE TABLE t.
type ShowTable struct {
	stmtText
	Table  TableName
	Create bool
}

// ShowTables is SHOW TABLES [FROM|IN schema].
type ShowTables struct {
	stmtText
	Schema string
}

// ShowSchemas is SHOW SCHEMAS / SHOW DATABASES.
type ShowSchemas struct{ stmtText }
