package sql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// ddlParser parses the statements that define and alter tables, views
// and schemas (CREATE, DROP, ALTER, VACUUM, DESCRIBE).
type ddlParser struct{ *parseCtx }

func (p *parseCtx) ddl() ddlParser { return ddlParser{p} }

// createStmt parses CREATE SCHEMA and CREATE TABLE; other CREATEs are 0A000.
func (p ddlParser) createStmt(c *cursor) (Statement, error) {
	c.i++
	switch {
	case c.word("schema"):
		cs := &CreateSchema{IfNotExists: c.words("if", "not", "exists")}
		var err error
		if cs.Name, err = c.ident(); err != nil {
			return nil, err
		}
		if c.peek().Is("authorization") {
			return nil, parse.UnsupportedAt(p.query, c.peek(), "CREATE SCHEMA ... AUTHORIZATION is not supported")
		}
		return cs, c.done()
	case c.word("table"):
		return p.createTable(c)
	case c.word("view"):
		return p.createView(c, false)
	case c.words("or", "replace", "view"):
		return p.createView(c, true)
	}
	return nil, p.unsupportedObject(c, "CREATE")
}

// unsupportedObject names the object kind of an unsupported CREATE/DROP/ALTER.
func (p ddlParser) unsupportedObject(c *cursor, verb string) error {
	start := c.i
	if c.atEnd() {
		return c.errHere()
	}
	for c.word("or", "replace", "temp", "temporary", "unlogged", "global", "local", "unique", "materialized",
		"foreign", "recursive", "default", "trusted", "procedural", "constraint") {
	}
	if c.peek().Kind != parse.TokIdent {
		return c.errHere()
	}
	return parse.UnsupportedAt(p.query, c.at(start), "%s %s is not supported", verb, c.upperWords(start, c.i+1))
}

func (p ddlParser) createTable(c *cursor) (Statement, error) {
	ct := &CreateTable{IfNotExists: c.words("if", "not", "exists")}
	var err error
	if ct.Name, err = c.tableName(); err != nil {
		return nil, err
	}
	if c.peek().Is("as") || c.peek().IsPunct("(") && columnNameList(c) {
		return p.createTableAs(c, ct)
	}
	if c.peek().Is("partitioned") || c.peek().Is("with") || c.peek().Is("using") || c.peek().Is("tblproperties") {
		return p.createTableAs(c, ct)
	}
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	for {
		if c.word("like") {
			if err := p.likeClause(c, ct); err != nil {
				return nil, err
			}
		} else {
			col, err := p.columnDef(c)
			if err != nil {
				return nil, err
			}
			ct.Columns = append(ct.Columns, col)
		}
		if c.punct(")") {
			break
		}
		if err := c.expectPunct(","); err != nil {
			return nil, err
		}
	}
	if err := p.createTableTail(c, ct); err != nil {
		return nil, err
	}
	return ct, nil
}

// createTableTail reads PARTITIONED BY, USING, WITH and TBLPROPERTIES in any order.
func (p ddlParser) createTableTail(c *cursor, ct *CreateTable) error {
	for !c.atEnd() && !(ct.Query == nil && c.peek().Is("as") && len(ct.Columns) == 0) {
		var err error
		switch {
		case c.words("partitioned", "by"):
			ct.Partition, err = p.partitionFields(c)
		case c.word("using"):
			_, err = c.ident() // USING iceberg
		case c.word("with"), c.word("tblproperties"):
			var props map[string]string
			if props, err = p.properties(c); err == nil {
				if ct.Properties == nil {
					ct.Properties = map[string]string{}
				}
				for k, v := range props {
					ct.Properties[k] = v
				}
			}
		default:
			return c.errHere()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var columnConstraints = map[string]string{
	"primary": "PRIMARY KEY", "unique": "UNIQUE", "references": "REFERENCES",
	"check": "CHECK", "constraint": "CONSTRAINT", "generated": "GENERATED", "collate": "COLLATE",
}

func (p ddlParser) columnDef(c *cursor) (ColumnDef, error) {
	if kw, ok := columnConstraints[c.peek().Val]; ok && c.peek().Kind == parse.TokIdent {
		return ColumnDef{}, parse.UnsupportedAt(p.query, c.peek(), "table constraint %s is not supported", kw)
	}
	name, err := c.ident()
	if err != nil {
		return ColumnDef{}, err
	}
	col, err := p.columnType(c, name)
	if err != nil {
		return ColumnDef{}, err
	}
	for !c.atEnd() && !c.peek().IsPunct(",") && !c.peek().IsPunct(")") {
		switch {
		case c.words("not", "null"):
			col.NotNull = true
		case c.word("null"):
			col.NotNull = false
		case c.word("default"):
			if col.Default, err = p.defaultExpr(c); err != nil {
				return ColumnDef{}, err
			}
		default:
			if kw, ok := columnConstraints[c.peek().Val]; ok && c.peek().Kind == parse.TokIdent {
				return ColumnDef{}, parse.UnsupportedAt(p.query, c.peek(), "column constraint %s is not supported", kw)
			}
			return ColumnDef{}, c.errHere()
		}
	}
	return col, nil
}

// defaultExpr reads DEFAULT's expression: up to the next constraint, or
// the end of the column's definition.
func (p ddlParser) defaultExpr(c *cursor) (Syntax, error) {
	end := c.until(func(t parse.Token) bool {
		_, constraint := columnConstraints[t.Val]
		return t.IsPunct(",") || t.IsPunct(")") || t.Is("not") || t.Is("null") && c.at(c.i).Val != "null" || constraint && t.Kind == parse.TokIdent
	})
	if end == c.i {
		return nil, c.errHere()
	}
	return c.exprUntil(end)
}

// columnType reads a column's type name.
func (p ddlParser) columnType(c *cursor, name string) (ColumnDef, error) {
	typTok := c.peek()
	if typTok.Kind == parse.TokIdent && serialTypes[typTok.Val] {
		return ColumnDef{}, parse.UnsupportedAt(p.query, typTok, "type %s is not supported: there are no sequences to number its rows", typTok.Val)
	}
	text, next, err := parse.TypeNameAt(p.query, c.toks, c.i, c.stop)
	if err != nil {
		return ColumnDef{}, err
	}
	typ, err := ParseTypeName(text)
	if err == nil && IsInternalChar(text) {
		err = pgerr.Errorf(pgerr.FeatureNotSupported, `type "char" cannot be stored in an Iceberg table; use char(1) or text`)
	}
	if err != nil {
		var e *pgerr.Error
		if errors.As(err, &e) {
			e.Position = parse.CharPos(p.query, typTok.Pos)
		}
		return ColumnDef{}, err
	}
	c.i = next
	return ColumnDef{Name: name, Type: typ}, nil
}

// serialTypes are PostgreSQL's shorthands for an integer column whose
// default takes the next value of a sequence of its own.
var serialTypes = map[string]bool{
	"smallserial": true, "serial2": true, "serial": true, "serial4": true, "bigserial": true, "serial8": true,
}

// partitionFields reads "(col | transform(col) | bucket(n, col) | truncate(w, col), ...)".
func (p ddlParser) partitionFields(c *cursor) ([]PartitionField, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	var out []PartitionField
	for {
		f, err := p.partitionField(c)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		if c.punct(")") {
			return out, nil
		}
		if err := c.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

var transformNames = map[string]string{
	"identity": "identity", "year": "year", "years": "year", "month": "month", "months": "month",
	"day": "day", "days": "day", "date": "day", "hour": "hour", "hours": "hour", "date_hour": "hour",
	"bucket": "bucket", "truncate": "truncate",
}

func (p ddlParser) partitionField(c *cursor) (PartitionField, error) {
	nameTok := c.peek()
	name, err := c.ident()
	if err != nil {
		return PartitionField{}, err
	}
	if !c.punct("(") {
		return PartitionField{Transform: "identity", Column: name}, nil
	}
	tr, ok := transformNames[strings.ToLower(name)]
	if !ok {
		return PartitionField{}, parse.UnsupportedAt(p.query, nameTok, "partition transform %s is not supported", name)
	}
	f := PartitionField{Transform: tr}
	for k := 0; ; k++ {
		if c.peek().Kind == parse.TokNumber {
			v, err := c.integer()
			if err != nil {
				return PartitionField{}, err
			}
			f.Param = int(v)
		} else if f.Column, err = c.ident(); err != nil {
			return PartitionField{}, err
		}
		if c.punct(")") {
			break
		}
		if err := c.expectPunct(","); err != nil {
			return PartitionField{}, err
		}
	}
	needsParam := tr == "bucket" || tr == "truncate"
	if f.Column == "" || needsParam != (f.Param > 0) {
		return PartitionField{}, &pgerr.Error{Code: pgerr.InvalidParameterValue, Position: parse.CharPos(p.query, nameTok.Pos),
			Message: "invalid arguments for partition transform " + name}
	}
	return f, nil
}

// properties reads "('k' = 'v', ...)"; keys and values may also be words or numbers.
func (p ddlParser) properties(c *cursor) (map[string]string, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	props := map[string]string{}
	for {
		k, err := p.propertyKey(c)
		if err != nil {
			return nil, err
		}
		if err := c.expectPunct("="); err != nil {
			return nil, err
		}
		v, err := p.propertyValue(c)
		if err != nil {
			return nil, err
		}
		props[k] = v
		if c.punct(")") {
			return props, nil
		}
		if err := c.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// propertyKey reads 'key' or a dotted word key (write.delete.mode).
func (p ddlParser) propertyKey(c *cursor) (string, error) {
	if c.peek().Kind == parse.TokString {
		return c.str()
	}
	var parts []string
	for {
		t := c.peek()
		if t.Kind != parse.TokIdent && t.Kind != parse.TokQIdent {
			return "", c.errHere()
		}
		c.i++
		parts = append(parts, t.Val)
		if !c.punct(".") {
			return strings.Join(parts, "."), nil
		}
	}
}

func (p ddlParser) propertyValue(c *cursor) (string, error) {
	t := c.peek()
	switch t.Kind {
	case parse.TokString:
		return c.str()
	case parse.TokNumber, parse.TokIdent, parse.TokQIdent:
		c.i++
		return t.Val, nil
	case parse.TokOp:
		if v, ok := c.signedNumber(); ok {
			return v, nil
		}
	}
	return "", c.errHere()
}

// propertyKeys reads "('k', ...)".
func (p ddlParser) propertyKeys(c *cursor) ([]string, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	var keys []string
	for {
		k, err := p.propertyKey(c)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		if c.punct(")") {
			return keys, nil
		}
		if err := c.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// dropStmt parses DROP SCHEMA and DROP TABLE.
func (p ddlParser) dropStmt(c *cursor) (Statement, error) {
	c.i++
	switch {
	case c.word("schema"):
		ds := &DropSchema{IfExists: c.words("if", "exists")}
		var err error
		if ds.Name, err = c.ident(); err != nil {
			return nil, err
		}
		if c.peek().IsPunct(",") {
			return nil, parse.UnsupportedAt(p.query, c.peek(), "DROP SCHEMA of several schemas is not supported")
		}
		ds.Cascade = c.word("cascade")
		if !ds.Cascade {
			c.word("restrict")
		}
		return ds, c.done()
	case c.word("view"):
		dv := &DropView{IfExists: c.words("if", "exists")}
		var err error
		if dv.Name, err = c.tableName(); err != nil {
			return nil, err
		}
		if c.peek().IsPunct(",") {
			return nil, parse.UnsupportedAt(p.query, c.peek(), "DROP VIEW of several views is not supported")
		}
		c.word("restrict", "cascade")
		return dv, c.done()
	case c.word("table"):
		dt := &DropTable{IfExists: c.words("if", "exists")}
		var err error
		if dt.Name, err = c.tableName(); err != nil {
			return nil, err
		}
		if c.peek().IsPunct(",") {
			return nil, parse.UnsupportedAt(p.query, c.peek(), "DROP TABLE of several tables is not supported")
		}
		dt.Purge = c.word("purge")
		if c.peek().Is("cascade") {
			return nil, parse.UnsupportedAt(p.query, c.peek(), "DROP TABLE ... CASCADE is not supported")
		}
		c.word("restrict")
		return dt, c.done()
	}
	return nil, p.unsupportedObject(c, "DROP")
}

// alterStmt parses ALTER TABLE t SET|RESET (...), SET|UNSET TBLPROPERTIES (...).
func (p ddlParser) alterStmt(c *cursor) (Statement, error) {
	c.i++
	if !c.word("table") {
		return nil, p.unsupportedObject(c, "ALTER")
	}
	ifExists := c.words("if", "exists")
	at := &AlterTableProperties{}
	var err error
	if at.Name, err = c.tableName(); err != nil {
		return nil, err
	}
	if c.word("execute") {
		return p.alterExecute(c, at.Name)
	}
	if ref, ok, err := p.alterRef(c, at.Name); ok || err != nil {
		return ref, err
	}
	if schemaAction(c) {
		return p.alterSchema(c, at.Name, ifExists)
	}
	switch {
	case c.word("set"):
		c.word("tblproperties")
		if !c.peek().IsPunct("(") {
			return nil, p.unsupportedAlter(c, c.i-1)
		}
		at.Set, err = p.properties(c)
	case c.word("reset"):
		at.Reset, err = p.propertyKeys(c)
	case c.words("unset", "tblproperties"):
		c.words("if", "exists")
		at.Reset, err = p.propertyKeys(c)
	default:
		return nil, p.unsupportedAlter(c, c.i)
	}
	if err != nil {
		return nil, err
	}
	return at, c.done()
}

// alterRef parses Spark's branch and tag statements; ok is false when the
// action is another.
func (p ddlParser) alterRef(c *cursor, name TableName) (Statement, bool, error) {
	r := &AlterRef{Table: name}
	switch {
	case c.words("create", "or", "replace"):
		r.Create, r.Replace = true, true
	case c.word("create"):
		r.Create = true
	case c.word("replace"):
		r.Replace = true
	case c.peek().Is("drop") && (c.peekN(1).Is("branch") || c.peekN(1).Is("tag")):
		c.i++
		r.Drop = true
	default:
		return nil, false, nil
	}
	switch {
	case c.word("tag"):
		r.Tag = true
	case c.word("branch"):
	case r.Replace && !r.Create:
		c.i-- // REPLACE PARTITION FIELD
		return nil, false, nil
	default:
		return nil, true, p.unsupportedAlter(c, c.i-1)
	}
	r.IfNotExists = c.words("if", "not", "exists") || r.Drop && c.words("if", "exists")
	var err error
	if r.Name, err = c.ident(); err != nil {
		return nil, true, err
	}
	if r.Drop {
		return r, true, c.done()
	}
	if c.words("as", "of", "version") {
		v, err := c.integer()
		if err != nil {
			return nil, true, err
		}
		r.SnapshotID = &v
	}
	if c.word("retain") {
		n, err := c.integer()
		if err != nil {
			return nil, true, err
		}
		unit := map[string]int64{"days": 86400000, "day": 86400000, "hours": 3600000, "hour": 3600000, "minutes": 60000, "minute": 60000}[c.peek().Val]
		if unit == 0 || n <= 0 {
			return nil, true, c.errHere()
		}
		c.i++
		r.RetainMs = n * unit
	}
	return r, true, c.done()
}

// schemaAction reports whether ALTER TABLE's action changes the schema or
// the table's name rather than its properties.
func schemaAction(c *cursor) bool {
	switch t := c.peek(); {
	case t.Is("add"), t.Is("drop"), t.Is("rename"), t.Is("alter"), t.Is("replace"):
		return true
	case t.Is("set"):
		return c.peekN(1).Is("schema")
	}
	return false
}

// alterSchema parses ALTER TABLE t RENAME [COLUMN] a TO b, RENAME TO u,
// SET SCHEMA s, or a comma-separated list of ADD [COLUMN] [IF NOT EXISTS]
// def, DROP [COLUMN] [IF EXISTS] c [RESTRICT|CASCADE], ALTER [COLUMN] c
// [SET DATA] TYPE t, ALTER [COLUMN] c SET|DROP NOT NULL.
func (p ddlParser) alterSchema(c *cursor, name TableName, ifExists bool) (Statement, error) {
	at := &AlterTable{Name: name, IfExists: ifExists}
	switch {
	case c.words("rename", "to"):
		n, err := c.ident()
		if err != nil {
			return nil, err
		}
		at.Actions = []AlterAction{{Kind: AlterRenameTable, NewName: n}}
		return at, c.done()
	case c.word("rename"):
		c.word("column")
		from, err := c.ident()
		if err != nil {
			return nil, err
		}
		if err := c.expect("to"); err != nil {
			return nil, err
		}
		to, err := c.ident()
		if err != nil {
			return nil, err
		}
		at.Actions = []AlterAction{{Kind: AlterRenameColumn, Name: from, NewName: to}}
		return at, c.done()
	case c.words("set", "schema"):
		n, err := c.ident()
		if err != nil {
			return nil, err
		}
		at.Actions = []AlterAction{{Kind: AlterSetSchema, NewName: n}}
		return at, c.done()
	}
	for {
		a, err := p.alterAction(c)
		if err != nil {
			return nil, err
		}
		at.Actions = append(at.Actions, a)
		if !c.punct(",") {
			return at, c.done()
		}
	}
}

// alterAction parses one ADD, DROP or ALTER COLUMN action.
func (p ddlParser) alterAction(c *cursor) (AlterAction, error) {
	start := c.i
	if c.peekN(1).Is("partition") && c.peekN(2).Is("field") {
		return p.partitionAction(c)
	}
	switch {
	case c.word("add"):
		if c.peek().Is("constraint") || c.peek().Is("primary") || c.peek().Is("unique") || c.peek().Is("check") || c.peek().Is("foreign") {
			return AlterAction{}, p.unsupportedAlter(c, start)
		}
		c.word("column")
		a := AlterAction{Kind: AlterAddColumn, IfExists: c.words("if", "not", "exists")}
		var err error
		a.Column, err = p.columnDef(c)
		a.Name = a.Column.Name
		return a, err
	case c.word("drop"):
		if !c.word("column") && (c.peek().Is("constraint") || c.peek().Is("partition")) {
			return AlterAction{}, p.unsupportedAlter(c, start)
		}
		a := AlterAction{Kind: AlterDropColumn, IfExists: c.words("if", "exists")}
		var err error
		if a.Name, err = c.ident(); err != nil {
			return a, err
		}
		c.word("restrict", "cascade")
		return a, nil
	case c.word("alter"):
		c.word("column")
		col, err := c.ident()
		if err != nil {
			return AlterAction{}, err
		}
		switch {
		case c.words("set", "not", "null"):
			return AlterAction{Kind: AlterSetNotNull, Name: col}, nil
		case c.words("drop", "not", "null"):
			return AlterAction{Kind: AlterDropNotNull, Name: col}, nil
		case c.words("set", "default"):
			a := AlterAction{Kind: AlterSetDefault, Name: col}
			a.Column.Default, err = p.defaultExpr(c)
			return a, err
		case c.words("drop", "default"):
			return AlterAction{Kind: AlterDropDefault, Name: col}, nil
		case c.word("type"), c.words("set", "data", "type"):
			return p.alterType(c, col, start)
		}
		return AlterAction{}, p.unsupportedAlter(c, start)
	}
	return AlterAction{}, p.unsupportedAlter(c, start)
}

// partitionAction parses Spark's ADD PARTITION FIELD f [AS name], DROP
// PARTITION FIELD f|name and REPLACE PARTITION FIELD f|name WITH f [AS
// name]: partition evolution.
func (p ddlParser) partitionAction(c *cursor) (AlterAction, error) {
	verb := c.peek().Val
	c.i += 3
	var a AlterAction
	var err error
	if verb != "add" {
		kind := AlterDropPartitionField
		if verb == "replace" {
			kind = AlterReplacePartitionField
		}
		a.Kind = kind
		if c.peekN(1).IsPunct("(") {
			a.Old, err = p.partitionField(c)
		} else {
			a.Name, err = c.ident()
		}
		if err != nil || kind == AlterDropPartitionField {
			return a, err
		}
		if err := c.expect("with"); err != nil {
			return a, err
		}
	} else {
		a.Kind = AlterAddPartitionField
	}
	if a.Partition, err = p.partitionField(c); err != nil {
		return a, err
	}
	if c.word("as") {
		a.PartName, err = c.ident()
	}
	return a, err
}

// alterType reads the new type of ALTER COLUMN c TYPE t; USING is refused:
// Iceberg changes types only by promotion, never by rewriting values.
func (p ddlParser) alterType(c *cursor, col string, start int) (AlterAction, error) {
	def, err := p.columnType(c, col)
	if err != nil {
		return AlterAction{}, err
	}
	if c.peek().Is("using") || c.peek().Is("collate") {
		return AlterAction{}, parse.UnsupportedAt(p.query, c.peek(), "ALTER COLUMN ... TYPE ... %s is not supported", strings.ToUpper(c.peek().Val))
	}
	return AlterAction{Kind: AlterColumnType, Name: col, Column: def}, nil
}

// vacuumStmt parses VACUUM [(PURGE | VERBOSE | DROP_TAGS | MOVE_TAGS, ...)]
// [VERBOSE] [t [, ...]]: without a table it is every table, as PostgreSQL's.
func (p ddlParser) vacuumStmt(c *cursor) (Statement, error) {
	c.i++
	v := &Vacuum{}
	if c.punct("(") {
		for !c.punct(")") {
			at := c.peek()
			switch {
			case c.word("purge"):
				v.Purge = true
			case c.word("verbose"):
				v.Verbose = true
			case c.word("drop_tags"), c.word("move_tags"):
				if v.Tags != TagsRefuse {
					return nil, &pgerr.Error{Code: pgerr.SyntaxError, Message: "VACUUM options DROP_TAGS and MOVE_TAGS cannot be used together", Position: parse.CharPos(p.query, at.Pos)}
				}
				v.Tags = TagsDrop
				if at.Is("move_tags") {
					v.Tags = TagsMove
				}
			case c.punct(","):
			default:
				return nil, parse.UnsupportedAt(p.query, c.peek(), "VACUUM option %s is not supported", strings.ToUpper(c.peek().Val))
			}
		}
	}
	if v.Tags != TagsRefuse && !v.Purge {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "VACUUM options DROP_TAGS and MOVE_TAGS apply to VACUUM (PURGE) only")
	}
	v.Verbose = c.word("verbose") || v.Verbose
	for !c.atEnd() {
		if len(v.Tables) > 0 && !c.punct(",") {
			return nil, c.errHere()
		}
		t, err := c.tableName()
		if err != nil {
			return nil, err
		}
		v.Tables = append(v.Tables, t)
	}
	return v, c.done()
}

// analyzeStmt parses ANALYZE [(VERBOSE [bool], SKIP_LOCKED [bool], ...)]
// [VERBOSE] [t [(col, ...)] [, ...]], PostgreSQL 15's forms; without a
// table it is every table. SKIP_LOCKED is accepted and changes nothing:
// ANALYZE takes no lock another statement waits on.
func (p ddlParser) analyzeStmt(c *cursor) (Statement, error) {
	c.i++
	a := &Analyze{}
	if c.punct("(") {
		for {
			opt := c.peek()
			if opt.Kind != parse.TokIdent {
				return nil, c.errHere()
			}
			c.i++
			on, err := p.optionBool(c, opt)
			if err != nil {
				return nil, err
			}
			switch opt.Val {
			case "verbose":
				a.Verbose = on
			case "skip_locked":
			default:
				return nil, &pgerr.Error{Code: pgerr.SyntaxError, Message: fmt.Sprintf("unrecognized ANALYZE option %q", opt.Val), Position: parse.CharPos(p.query, opt.Pos)}
			}
			if c.punct(")") {
				break
			}
			if !c.punct(",") {
				return nil, c.errHere()
			}
		}
	} else {
		a.Verbose = c.word("verbose")
	}
	for !c.atEnd() {
		if len(a.Tables) > 0 && !c.punct(",") {
			return nil, c.errHere()
		}
		t, err := c.tableName()
		if err != nil {
			return nil, err
		}
		target := AnalyzeTarget{Table: t}
		if c.peek().IsPunct("(") {
			if target.Columns, err = c.identList(); err != nil {
				return nil, err
			}
		}
		a.Tables = append(a.Tables, target)
	}
	return a, c.done()
}

// optionBool reads the optional Boolean value of a parenthesized option
// (VERBOSE, VERBOSE true, VERBOSE off, VERBOSE 0): none is true.
func (ddlParser) optionBool(c *cursor, opt parse.Token) (bool, error) {
	v := c.peek()
	if v.IsPunct(",") || v.IsPunct(")") {
		return true, nil
	}
	if c.atEnd() || v.Kind == parse.TokPunct || v.Kind == parse.TokOp {
		return false, c.errHere()
	}
	c.i++
	switch strings.ToLower(v.Val) {
	case "true", "on", "1":
		return true, nil
	case "false", "off", "0":
		return false, nil
	}
	return false, pgerr.Errorf(pgerr.SyntaxError, "%s requires a Boolean value", opt.Val)
}

// alterExecute parses ALTER TABLE t EXECUTE procedure [(name => value,
// ...)] [WHERE cond] (Trino's spelling of table maintenance).
func (p ddlParser) alterExecute(c *cursor, name TableName) (Statement, error) {
	ex := &AlterExecute{Table: name, Args: map[string]Syntax{}}
	var err error
	if ex.Procedure, err = c.ident(); err != nil {
		return nil, err
	}
	if c.punct("(") {
		for !c.punct(")") {
			// Argument names may be reserved words (fast_forward's to).
			arg := c.peek().Val
			if t := c.peek(); t.Kind != parse.TokIdent && t.Kind != parse.TokQIdent {
				return nil, c.errHere()
			}
			c.i++
			if !c.punct("=>") {
				return nil, c.errHere()
			}
			end := c.until(func(t parse.Token) bool { return t.IsPunct(",") || t.IsPunct(")") })
			if ex.Args[arg], err = c.exprUntil(end); err != nil {
				return nil, err
			}
			c.punct(",")
		}
	}
	if c.word("where") {
		if ex.Where, err = c.exprUntil(len(c.toks)); err != nil {
			return nil, err
		}
	}
	return ex, c.done()
}

func (p ddlParser) unsupportedAlter(c *cursor, from int) error {
	if from >= len(c.toks) {
		return c.errHere()
	}
	to := from + 1
	if to < len(c.toks) && c.toks[to].Kind == parse.TokIdent && !c.toks[to].IsPunct("(") {
		to++
	}
	return parse.UnsupportedAt(p.query, c.at(from), "ALTER TABLE ... %s is not supported", c.upperWords(from, to))
}

// describeStmt parses DESCRIBE t / DESC t.
func (p ddlParser) describeStmt(c *cursor) (Statement, error) {
	c.i++
	c.word("table")
	name, err := c.tableName()
	if err != nil {
		return nil, err
	}
	return &Describe{Table: name}, c.done()
}

// columnNameList reports whether the parenthesis at the cursor holds bare
// column names (CREATE TABLE t (a, b) AS ...) rather than definitions.
func columnNameList(c *cursor) bool {
	for k := c.i + 1; k < len(c.toks); k += 2 {
		name, next := c.toks[k], c.at(k+1)
		if name.Kind != parse.TokIdent && name.Kind != parse.TokQIdent {
			return false
		}
		if next.IsPunct(")") {
			return true
		}
		if !next.IsPunct(",") {
			return false
		}
	}
	return false
}

// createTableAs parses CREATE TABLE t [(names)] [PARTITIONED BY ...]
// [WITH (...)] AS query [WITH [NO] DATA].
func (p ddlParser) createTableAs(c *cursor, ct *CreateTable) (Statement, error) {
	if c.peek().IsPunct("(") {
		var err error
		if ct.ColumnNames, err = c.identList(); err != nil {
			return nil, err
		}
	}
	if err := p.createTableTail(c, ct); err != nil {
		return nil, err
	}
	if err := c.expect("as"); err != nil {
		return nil, err
	}
	end := len(c.toks)
	switch n := len(c.toks); {
	case n-c.i > 3 && c.toks[n-3].Is("with") && c.toks[n-2].Is("no") && c.toks[n-1].Is("data"):
		end, ct.NoData = n-3, true
	case n-c.i > 2 && c.toks[n-2].Is("with") && c.toks[n-1].Is("data"):
		end = n - 2
	}
	q, err := p.selects().selectStmt(c.toks[c.i:end], c.at(end))
	if err != nil {
		return nil, err
	}
	ct.Query = q
	c.i = len(c.toks)
	return ct, nil
}

// createView parses CREATE [OR REPLACE] VIEW name [(cols)] AS query; the
// query's text is kept as written, the view's definition.
func (p ddlParser) createView(c *cursor, replace bool) (Statement, error) {
	cv := &CreateView{OrReplace: replace}
	var err error
	if cv.Name, err = c.tableName(); err != nil {
		return nil, err
	}
	if c.peek().IsPunct("(") {
		if cv.Columns, err = c.identList(); err != nil {
			return nil, err
		}
	}
	if c.peek().Is("with") {
		return nil, parse.UnsupportedAt(p.query, c.peek(), "CREATE VIEW ... WITH options are not supported")
	}
	if err := c.expect("as"); err != nil {
		return nil, err
	}
	end := len(c.toks)
	if end-c.i > 3 && c.toks[end-1].Is("option") && c.toks[end-2].Is("check") {
		return nil, parse.UnsupportedAt(p.query, c.toks[end-2], "WITH CHECK OPTION is not supported")
	}
	if c.i >= end {
		return nil, c.errHere()
	}
	if cv.Query, err = p.selects().selectStmt(c.toks[c.i:end], c.at(end)); err != nil {
		return nil, err
	}
	cv.Definition = p.query[c.toks[c.i].Pos:c.toks[end-1].End]
	c.i = end
	return cv, nil
}

// likeClause reads LIKE source [INCLUDING|EXCLUDING option ...]: the
// columns' names, types and NOT NULL are always copied, their defaults
// with INCLUDING DEFAULTS (or ALL); there are no constraints or indexes
// to copy. A later option overrides an earlier one, as in PostgreSQL.
func (p ddlParser) likeClause(c *cursor, ct *CreateTable) error {
	if ct.Like != nil {
		return parse.UnsupportedAt(p.query, c.at(c.i-1), "more than one LIKE in CREATE TABLE is not supported")
	}
	src, err := c.tableName()
	if err != nil {
		return err
	}
	ct.Like, ct.LikeAt = &src, len(ct.Columns)
	for {
		including := c.word("including")
		if !including && !c.word("excluding") {
			break
		}
		if c.peek().Kind != parse.TokIdent { // ALL, DEFAULTS, CONSTRAINTS, ...
			return c.errHere()
		}
		if c.peek().Is("defaults") || c.peek().Is("all") {
			ct.LikeDefaults = including
		}
		c.i++
	}
	return nil
}
