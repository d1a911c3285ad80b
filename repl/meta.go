package repl

import (
	"context"
	"fmt"
	"io"
)

const helpText = `General
  \q                     quit magmalake
  \?                     show this help

Query buffer
  \r                     reset (clear) the query buffer
  \e                     edit the query buffer (or the last query) in $EDITOR
  \g [FILE], \gx         run the query buffer (to FILE; \gx expanded)
  \watch [SEC] [c=N]     run the last query every SEC seconds

Input/Output
  \copy ...              COPY with the file read or written by the shell:
                         \copy t [(cols)] FROM 'file'|stdin [WITH (...)],
                         \copy t|(query) TO 'file'|stdout [WITH (...)]

Informational
  \d[+] [NAME]           describe table NAME (+: properties, files, rows,
                         snapshot), or list tables
  \df[anptwS+] [PATTERN] list functions (a, n, p, t, w: only aggregate, normal,
                         procedure, trigger, window ones; pg_catalog's only
                         with S or a PATTERN)
  \dt [SCHEMA.*]         list tables
  \dv [SCHEMA.*]         list views
  \dn                    list schemas
  \dt+                   list tables with size and rows
  \l, \du, \conninfo     the database, the roles, the connection
  \debt TABLE            the table's delete debt: live and deleted rows per data file

Formatting
  \a                     toggle between unaligned and aligned output mode
  \C [STRING]            set table title, or unset if none
  \f [STRING]            show or set field separator for unaligned query output
  \H                     toggle HTML output mode
  \pset [NAME [VALUE]]   set table output option, or list them all
                         (border, columns, csv_fieldsep, expanded, fieldsep,
                         fieldsep_zero, footer, format, null, pager,
                         pager_min_lines, recordsep, recordsep_zero, tableattr,
                         title, tuples_only); formats: aligned, asciidoc, csv,
                         html, json, markdown, unaligned
  \t [on|off]            show only rows
  \T [STRING]            set HTML <table> tag attributes, or unset if none
  \x [on|off|auto]       toggle expanded output
  \timing [on|off]       toggle timing of statements
  \set VERBOSITY default|verbose|terse
                         how much of an error to show (verbose adds SQLSTATE)
`

// meta runs one backslash command. Unknown commands and bad arguments are
// failures, so that a script stops on them as psql -v ON_ERROR_STOP=1 does.
func (sh *Shell) meta(ctx context.Context, line string) (quit bool, err error) {
	cmd, rest := splitCommand(line)
	if handled, quit, err := sh.metaRaw(ctx, cmd, rest); handled {
		return quit, err
	}
	args, err := sh.vars.metaArgs(rest)
	if err != nil {
		fmt.Fprintf(sh.pr.errOut, "%s: %v\n", cmd, err)
		return false, ErrFailed
	}
	switch cmd {
	case `\q`:
		return true, nil
	case `\?`:
		io.WriteString(sh.pr.out, helpText)
	case `\r`:
		sh.pending.reset()
		fmt.Fprintln(sh.pr.out, "Query buffer reset (cleared).")
	case `\conninfo`:
		fmt.Fprintln(sh.pr.out, sh.ConnInfo)
	case `\timing`:
		return false, sh.pr.toggle(&sh.Timing, args, "Timing")
	case `\set`:
		return false, sh.set(args)
	case `\unset`:
		return false, sh.unset(args)
	case `\d`, `\d+`:
		if len(args) > 0 {
			if err := sh.cat.describeTable(ctx, args[0], cmd == `\d+`); err != nil {
				sh.pr.printError(err, "")
				return false, ErrFailed
			}
			return false, nil
		}
		return false, sh.cat.describe(ctx, `\d`, args)
	case `\dt`, `\dn`:
		return false, sh.cat.describe(ctx, cmd, args)
	case `\dv`:
		return false, sh.cat.listViews(ctx, args)
	case `\debt`:
		return false, sh.cat.debt(ctx, args)
	default:
		if handled, quit, err := sh.metaScript(ctx, cmd, args); handled {
			return quit, err
		}
		if handled, err := sh.cat.metaCatalog(ctx, cmd, args); handled {
			return false, err
		}
		if handled, err := sh.pr.metaOutput(cmd, args); handled {
			return false, err
		}
		fmt.Fprintf(sh.pr.errOut, "invalid command %s\n", cmd)
		if sh.Interactive { // psql says it only on a terminal
			fmt.Fprintln(sh.pr.errOut, `Try \? for help.`)
		}
		return false, ErrFailed
	}
	return false, nil
}
