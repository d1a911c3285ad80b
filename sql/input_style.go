package sql

import "context"

// InputStyle is the session state that reading text as a datum depends on:
// DateStyle's field order, which decides what 01/02/03 means. The zero
// value is PostgreSQL's default, "ISO, MDY". A session hands it to binding
// in Params.Input (literals are read when a statement is bound, as
// PostgreSQL reads them at parse analysis) and to evaluation in the
// statement's context (parameters and casts of text are read when they
// run); no global holds it, so sessions with different styles do not mix.
type InputStyle struct {
	DateOrder DateOrder
}

type inputStyleKey struct{}

// WithInputStyle records the session's input style for what evaluates under ctx.
func WithInputStyle(ctx context.Context, in InputStyle) context.Context {
	return context.WithValue(ctx, inputStyleKey{}, in)
}

// InputStyleOf is the input style recorded in ctx, the default when none is.
func InputStyleOf(ctx context.Context) InputStyle {
	in, _ := ctx.Value(inputStyleKey{}).(InputStyle)
	return in
}
