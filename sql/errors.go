package sql

import (
	"context"
	"errors"
	"fmt"
)

// SQLSTATE codes used across magmalake. The wire layer sends Error.Code as is;
// every other layer picks the most precise code that exists. A code has one
// constant, named after its condition in PostgreSQL's errcodes.txt, so that
// no layer spells a SQLSTATE as a raw string.
const (
	CodeSuccessfulCompletion             = "00000"
	CodeWarning                          = "01000"
	CodeFeatureNotSupported              = "0A000"
	CodeInvalidSchemaName                = "3F000"
	CodeInvalidCatalogName               = "3D000"
	CodeSyntaxError                      = "42601"
	CodeUndefinedTable                   = "42P01"
	CodeUndefinedColumn                  = "42703"
	CodeUndefinedFunction                = "42883"
	CodeUndefinedObject                  = "42704"
	CodeInvalidName                      = "42602"
	CodeNameTooLong                      = "42622"
	CodeDuplicateObject                  = "42710"
	CodeObjectNotInPrerequisiteState     = "55000"
	CodeWindowingError                   = "42P20"
	CodeDuplicateTable                   = "42P07"
	CodeDuplicateSchema                  = "42P06"
	CodeDuplicateColumn                  = "42701"
	CodeInvalidTableDefinition           = "42P16"
	CodeDuplicateAlias                   = "42712"
	CodeAmbiguousColumn                  = "42702"
	CodeAmbiguousFunction                = "42725"
	CodeDatatypeMismatch                 = "42804"
	CodeIndeterminateDatatype            = "42P18"
	CodeCannotCoerce                     = "42846"
	CodeWrongObjectType                  = "42809"
	CodeGroupingError                    = "42803"
	CodeInvalidParameterValue            = "22023"
	CodeInvalidTextRep                   = "22P02"
	CodeInvalidBinaryRepresentation      = "22P03"
	CodeBadCopyFileFormat                = "22P04"
	CodeNumericOutOfRange                = "22003"
	CodeDivisionByZero                   = "22012"
	CodeInvalidDatetimeFormat            = "22007"
	CodeDatetimeFieldOverflow            = "22008"
	CodeInvalidTimeZoneDisplacementValue = "22009"
	CodeStringDataRightTrunc             = "22001"
	CodeSubstringError                   = "22011"
	CodeInvalidEscapeSequence            = "22025"
	CodeInvalidRegularExpression         = "2201B"
	CodeNotNullViolation                 = "23502"
	CodeSchemaNotEmpty                   = "2BP01"
	CodeInFailedTransaction              = "25P02"
	CodeReadOnlyTransaction              = "25006"
	CodeActiveTransaction                = "25001"
	CodeNoActiveTransaction              = "25P01"
	CodeInvalidSavepointSpecification    = "3B001"
	CodeSerializationFailure             = "40001"
	CodeStatementCompletionUnknown       = "40003"
	CodeQueryCanceled                    = "57014"
	CodeCantChangeRuntimeParam           = "55P02"
	CodeLockNotAvailable                 = "55P03"
	CodeInvalidPassword                  = "28P01"
	CodeProtocolViolation                = "08P01"
	CodeTooManyConnections               = "53300"
	CodeInvalidCursorName                = "34000"
	CodeDataCorrupted                    = "XX001"
	CodeInternal                         = "XX000"
	CodeIOError                          = "58030"
	CodeUndefinedFile                    = "58P01"
	CodeCardinalityViolation             = "21000"
	CodeNullValueNotAllowed              = "22004"
	CodeInvalidColumnReference           = "42P10"
	CodeInvalidRecursion                 = "42P19"
	CodeCheckViolation                   = "23514"
	CodeProgramLimitExceeded             = "54000"
	CodeInsufficientPrivilege            = "42501"
	CodeDiskFull                         = "53100"
	CodeSnapshotTooOld                   = "72000"
)

// SQLSTATEs of statements and portals looked up by name: PREPARE, EXECUTE,
// DECLARE and the extended protocol's Parse, Bind and Describe.
const (
	CodeDuplicatePreparedStatement = "42P05"
	CodeDuplicateCursor            = "42P03"
	CodeInvalidSQLStatementName    = "26000"
)

// SQLSTATEs of the mathematical functions' domain errors.
const (
	CodeInvalidArgumentForPowerFunction = "2201F"
	CodeInvalidArgumentForLogarithm     = "2201E"
)

// SQLSTATEs of the arguments of window frames, window functions and
// LIMIT/OFFSET; a NULL one is CodeNullValueNotAllowed.
const (
	CodeInvalidPrecedingOrFollowingSize    = "22013" // frame offset < 0
	CodeInvalidArgumentForNtileFunction    = "22014"
	CodeInvalidArgumentForNthValueFunction = "22016"
	CodeInvalidRowCountInLimitClause       = "2201W" // LIMIT or OFFSET < 0
)

// SQLSTATEs of the resource limits one statement can hit.
const (
	CodeStatementTooComplex = "54001" // stack depth limit exceeded
	CodeOutOfMemory         = "53200" // work_mem exceeded
)

// SQLSTATEs of the wire layer's protocol checks.
const (
	CodeCharacterNotInRepertoire = "22021" // invalid byte sequence for encoding "UTF8"
	CodeInvalidAuthorization     = "28000" // invalid_authorization_specification
)

// SQLSTATEs of the FATAL errors that end a session the client did not close.
const (
	CodeIdleInTransactionSessionTimeout = "25P03"
	CodeIdleSessionTimeout              = "57P05"
	CodeAdminShutdown                   = "57P01"
)

// Error is the one error type that carries a SQLSTATE to the client. Position is
// 1-based in characters of the original statement text, 0 when unknown.
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int
	Severity string // "ERROR" when empty; "FATAL" closes the connection
	// Ref is the qualified name (table, or [qualifier.]column) an undefined
	// relation or column error is about; Locate turns it into Position.
	Ref *NameRef
	Err error // wrapped cause, if any
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with the given SQLSTATE.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Canceled maps a context error to the SQLSTATE clients expect.
func Canceled(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeQueryCanceled, Message: "canceling statement due to statement timeout", Err: err}
	}
	return &Error{Code: CodeQueryCanceled, Message: "canceling statement due to user request", Err: err}
}
