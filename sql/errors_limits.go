package sql

// SQLSTATEs of the resource limits one statement can hit.
const (
	CodeStatementTooComplex = "54001" // stack depth limit exceeded
	CodeOutOfMemory         = "53200" // work_mem exceeded
)
