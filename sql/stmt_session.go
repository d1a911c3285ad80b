package sql

// Set is SET [SESSION|LOCAL] name = value; Value is the value as text ("" for
// DEFAULT, list items joined with ", ").
type Set struct {
	stmtText
	Name    string
	Value   string
	Default bool
	Local   bool
}

// SetTransaction is SET [SESSION CHARACTERISTICS AS] TRANSACTION ...
type SetTransaction struct {
	stmtText
	ReadOnly  *bool
	Isolation string
	// Session is true for SET SESSION CHARACTERISTICS AS TRANSACTION.
	Session bool
}

// Show is SHOW name (Name "all" for SHOW ALL).
type Show struct {
	stmtText
	Name string
}

// Reset is RESET name / RESET ALL.
type Reset struct {
	stmtText
	Name string
	All  bool
}

// Begin is BEGIN / START TRANSACTION with optional modes.
type Begin struct {
	stmtText
	ReadOnly  *bool
	Isolation string
}

// Commit is COMMIT / END.
type Commit struct{ stmtText }

// Rollback is ROLLBACK / ABORT, or ROLLBACK TO SAVEPOINT when ToSavepoint is set.
type Rollback struct {
	stmtText
	ToSavepoint string
}

// Savepoint is SAVEPOINT name.
type Savepoint struct {
	stmtText
	Name string
}

// ReleaseSavepoint is RELEASE [SAVEPOINT] name.
type ReleaseSavepoint struct {
	stmtText
	Name string
}

// Discard is DISCARD ALL|PLANS|SEQUENCES|TEMP.
type Discard struct {
	stmtText
	All    bool
	Target string
}

// PrepareStmt is PREPARE name [(types)] AS statement (SQL-level prepared
// statements, which live in the session beside the protocol's).
type PrepareStmt struct {
	stmtText
	Name  string
	Types []Type // declared parameter types; the rest are inferred
	Body  string
}

// ExecuteStmt is EXECUTE name [(args)].
type ExecuteStmt struct {
	stmtText
	Name string
	Args []Syntax
}

// Deallocate is DEALLOCATE [PREPARE] name|ALL.
type Deallocate struct {
	stmtText
	Name string
	All  bool
}

// Copy is COPY t [(cols)] FROM STDIN / COPY t|(query) TO STDOUT.
type Copy struct {
	stmtText
	Table     TableName
	Columns   []string
	Query     *Select
	From      bool
	Format    string // text, csv or binary
	Header    bool
	Delimiter string
	Null      string
	Quote     string
	Escape    string
}
