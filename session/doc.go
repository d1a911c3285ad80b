// Package session is a connection's session: what wire and the shell talk
// to (the contract's values are in stmt). It holds the session's state —
// the transaction block (txBlock), settings, cursors, the plan cache,
// the statement log, progress — resolves names (nameResolver), plans
// SELECT, SHOW and EXPLAIN, and dispatches every other statement to the
// package of its family (dml, ddl, maintenance, copyio) through the port
// that family declares, implemented by a small adapter here (*_port.go).
// Engine is what sessions of one server share: the warehouse, the file
// cache, the budgets and the statement holds.
package session
