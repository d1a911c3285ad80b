// Package pgerr is magmalake's vocabulary of SQL errors: the SQLSTATE codes
// it reports and the error type that carries one, with its message, detail,
// hint and position, to the client. It imports nothing of the project, so
// any layer (wire, the shell, the engine) can name an error without linking
// the SQL layer.
package pgerr

// Code is a SQLSTATE, the five-character code PostgreSQL gives every error
// condition (appendix A of its manual, src/backend/utils/errcodes.txt).
type Code string

// The SQLSTATE codes magmalake reports. The wire layer sends Error.Code as is;
// every other layer picks the most precise code that exists. A code has one
// constant, named after its condition in PostgreSQL's errcodes.txt, so that
// no layer spells a SQLSTATE as a raw string.
const (
	SuccessfulCompletion             Code = "00000"
	Warning                          Code = "01000"
	FeatureNotSupported              Code = "0A000"
	InvalidSchemaName                Code = "3F000"
	InvalidCatalogName               Code = "3D000"
	SyntaxError                      Code = "42601"
	UndefinedTable                   Code = "42P01"
	UndefinedColumn                  Code = "42703"
	UndefinedFunction                Code = "42883"
	UndefinedObject                  Code = "42704"
	InvalidName                      Code = "42602"
	NameTooLong                      Code = "42622"
	DuplicateObject                  Code = "42710"
	ObjectNotInPrerequisiteState     Code = "55000"
	WindowingError                   Code = "42P20"
	DuplicateTable                   Code = "42P07"
	DuplicateSchema                  Code = "42P06"
	DuplicateColumn                  Code = "42701"
	InvalidTableDefinition           Code = "42P16"
	DuplicateAlias                   Code = "42712"
	AmbiguousColumn                  Code = "42702"
	AmbiguousFunction                Code = "42725"
	DatatypeMismatch                 Code = "42804"
	IndeterminateDatatype            Code = "42P18"
	CannotCoerce                     Code = "42846"
	WrongObjectType                  Code = "42809"
	GroupingError                    Code = "42803"
	InvalidParameterValue            Code = "22023"
	InvalidTextRepresentation        Code = "22P02"
	InvalidBinaryRepresentation      Code = "22P03"
	BadCopyFileFormat                Code = "22P04"
	NumericValueOutOfRange           Code = "22003"
	DivisionByZero                   Code = "22012"
	InvalidDatetimeFormat            Code = "22007"
	DatetimeFieldOverflow            Code = "22008"
	InvalidTimeZoneDisplacementValue Code = "22009"
	StringDataRightTruncation        Code = "22001"
	SubstringError                   Code = "22011"
	InvalidEscapeSequence            Code = "22025"
	InvalidRegularExpression         Code = "2201B"
	NotNullViolation                 Code = "23502"
	DependentObjectsStillExist       Code = "2BP01"
	InFailedSQLTransaction           Code = "25P02"
	ReadOnlySQLTransaction           Code = "25006"
	ActiveSQLTransaction             Code = "25001"
	NoActiveSQLTransaction           Code = "25P01"
	InvalidSavepointSpecification    Code = "3B001"
	SerializationFailure             Code = "40001"
	StatementCompletionUnknown       Code = "40003"
	QueryCanceled                    Code = "57014"
	CantChangeRuntimeParam           Code = "55P02"
	LockNotAvailable                 Code = "55P03"
	InvalidPassword                  Code = "28P01"
	ProtocolViolation                Code = "08P01"
	TooManyConnections               Code = "53300"
	InvalidCursorName                Code = "34000"
	DataCorrupted                    Code = "XX001"
	InternalError                    Code = "XX000"
	IOError                          Code = "58030"
	UndefinedFile                    Code = "58P01"
	CardinalityViolation             Code = "21000"
	NullValueNotAllowed              Code = "22004"
	InvalidColumnReference           Code = "42P10"
	InvalidRecursion                 Code = "42P19"
	CheckViolation                   Code = "23514"
	ProgramLimitExceeded             Code = "54000"
	InsufficientPrivilege            Code = "42501"
	DiskFull                         Code = "53100"
	SnapshotTooOld                   Code = "72000"
)

// SQLSTATEs of statements and portals looked up by name: PREPARE, EXECUTE,
// DECLARE and the extended protocol's Parse, Bind and Describe.
const (
	DuplicatePreparedStatement Code = "42P05"
	DuplicateCursor            Code = "42P03"
	InvalidSQLStatementName    Code = "26000"
)

// SQLSTATEs of the mathematical functions' domain errors.
const (
	InvalidArgumentForPowerFunction Code = "2201F"
	InvalidArgumentForLogarithm     Code = "2201E"
)

// SQLSTATEs of the arguments of window frames, window functions and
// LIMIT/OFFSET; a NULL one is NullValueNotAllowed.
const (
	InvalidPrecedingOrFollowingSize    Code = "22013" // frame offset < 0
	InvalidArgumentForNtileFunction    Code = "22014"
	InvalidArgumentForNthValueFunction Code = "22016"
	InvalidRowCountInLimitClause       Code = "2201W" // LIMIT or OFFSET < 0
)

// SQLSTATEs of the resource limits one statement can hit.
const (
	StatementTooComplex Code = "54001" // stack depth limit exceeded
	OutOfMemory         Code = "53200" // work_mem exceeded
)

// SQLSTATEs of the wire layer's protocol checks.
const (
	CharacterNotInRepertoire          Code = "22021" // invalid byte sequence for encoding "UTF8"
	InvalidAuthorizationSpecification Code = "28000"
)

// SQLSTATEs of the FATAL errors that end a session the client did not close.
const (
	IdleInTransactionSessionTimeout Code = "25P03"
	IdleSessionTimeout              Code = "57P05"
	AdminShutdown                   Code = "57P01"
)

// SQLSTATEs of the shell's connection to the server, which libpq reports
// itself when the connection is missing or lost.
const (
	ConnectionDoesNotExist Code = "08003"
	ConnectionFailure      Code = "08006"
)

// The classes a layer tests a code's membership of (Code.Class); each is
// its class's own condition in errcodes.txt.
const (
	DataException                Code = "22000"
	IntegrityConstraintViolation Code = "23000"
)

// Class is the code of c's class: its first two characters followed by
// 000, as errcodes.txt numbers a class's own condition (22012 is in
// DataException, 28P01 in InvalidAuthorizationSpecification). A code too
// short to have a class has none: "".
func (c Code) Class() Code {
	if len(c) < 2 {
		return ""
	}
	return c[:2] + "000"
}
