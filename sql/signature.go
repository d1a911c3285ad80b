package sql

import (
	"errors"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// PostgreSQL's messages about functions and operators that do not exist,
// or that more than one candidate fits, name the argument types with
// format_type_be: without typmods (varchar(5) is "character varying",
// char(3) "character", numeric(5,2) "numeric"), and as the call wrote
// them (a quoted literal is "unknown" even where binding had already
// given it the type of a candidate's parameter).

const (
	hintNoFunction        = "No function matches the given name and argument types. You might need to add explicit type casts."
	hintFunctionNotUnique = "Could not choose a best candidate function. You might need to add explicit type casts."
	hintNoOperator        = "No operator matches the given name and argument types. You might need to add explicit type casts."
	hintNoPrefixOperator  = "No operator matches the given name and argument type. You might need to add an explicit type cast."
	hintOperatorNotUnique = "Could not choose a best candidate operator. You might need to add explicit type casts."
)

// SigName is t as format_type_be prints it: its name without a typmod.
func (t Type) SigName() string {
	switch {
	case t.Kind == KindArray:
		return t.ElemType().SigName() + "[]"
	case t.Kind == KindVarchar && t.Bpchar:
		return "character" // bpchar without a typmod too
	}
	t.Precision, t.Scale, t.Length = 0, 0, 0
	return t.String()
}

// sigList is the argument list of a signature message.
func sigList(types []Type) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.SigName()
	}
	return strings.Join(names, ", ")
}

func exprTypes(args []Expr) []Type {
	types := make([]Type, len(args))
	for i, a := range args {
		types[i] = a.Type()
	}
	return types
}

// callSig is the call a signature error is about; it is the Error's Err,
// so that the binder of the call can restate the message.
type callSig struct {
	name, what string // what: "does not exist" or "is not unique"
	types      []Type
}

func (c *callSig) Error() string {
	return "function " + c.name + "(" + sigList(c.types) + ") " + c.what
}

func signatureError(code pgerr.Code, hint string, sig *callSig) *pgerr.Error {
	return &pgerr.Error{Code: code, Message: sig.Error(), Hint: hint, Err: sig}
}

// noFunction is 42883 for a call of name with args.
func noFunction(name string, args []Expr) *pgerr.Error {
	return signatureError(pgerr.UndefinedFunction, hintNoFunction, &callSig{name, "does not exist", exprTypes(args)})
}

// functionNotUnique is 42725: several candidates fit the call equally.
func functionNotUnique(name string, types ...Type) *pgerr.Error {
	return signatureError(pgerr.AmbiguousFunction, hintFunctionNotUnique, &callSig{name, "is not unique", types})
}

// restate rewrites a signature error's call; other errors pass unchanged.
func restate(err error, change func(*callSig)) error {
	var sig *callSig
	e, ok := err.(*pgerr.Error)
	if !ok || !errors.As(e.Err, &sig) {
		return err
	}
	c := *sig
	change(&c)
	r := *e
	r.Message, r.Err = c.Error(), &c
	return &r
}

// asWritten names the argument types of a signature error as the call
// wrote them, all of them: checks of some arguments report on those alone.
func asWritten(err error, written []Type) error {
	return restate(err, func(c *callSig) { c.types = written })
}

// qualified gives a signature error the schema-qualified name of the
// function, as PostgreSQL names the function that SQL syntax such as
// TRIM(...) stands for.
func qualified(err error) error {
	return restate(err, func(c *callSig) { c.name = "pg_catalog." + c.name })
}

// noOperator is 42883 for l op r.
func noOperator(l Type, op string, r Type) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.UndefinedFunction, Message: "operator does not exist: " + l.SigName() + " " + op + " " + r.SigName(), Hint: hintNoOperator}
}

// noPrefixOperator is 42883 for op x.
func noPrefixOperator(op string, x Type) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.UndefinedFunction, Message: "operator does not exist: " + op + " " + x.SigName(), Hint: hintNoPrefixOperator}
}

// operatorNotUnique is 42725 for l op r.
func operatorNotUnique(l Type, op string, r Type) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.AmbiguousFunction, Message: "operator is not unique: " + l.SigName() + " " + op + " " + r.SigName(), Hint: hintOperatorNotUnique}
}

// prefixOperatorNotUnique is 42725 for op x.
func prefixOperatorNotUnique(op string, x Type) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.AmbiguousFunction, Message: "operator is not unique: " + op + " " + x.SigName(), Hint: hintOperatorNotUnique}
}
