package session

import (
	"github.com/magmalake/magmalake/engine"
	logical "github.com/magmalake/magmalake/plan"

	"context"
	"errors"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// showReader answers SHOW (a setting, ALL, TABLES, SCHEMAS), DESCRIBE and
// SHOW TBLPROPERTIES / CREATE TABLE from the session's settings, block
// and names.
type showReader struct {
	engine   *Engine
	settings *Settings
	info     stmt.SessionInfo
	tx       *txBlock
	names    *nameResolver
	env      func() *engine.Env // the query engine's view of the session, for a view's columns
}

// prepareShow plans SHOW, SHOW TABLES, SHOW SCHEMAS and DESCRIBE.
func (s *Session) prepareShow(ctx context.Context, st sql.Statement) (plan, []stmt.Column, error) {
	var cols []string
	var tag string
	switch x := st.(type) {
	case *sql.Show:
		tag = "SHOW"
		cols = []string{showColumnName(x.Name)}
		if strings.EqualFold(x.Name, "all") {
			cols = []string{"name", "setting", "description"}
		} else if _, err := s.show.showValue(x.Name); err != nil {
			return nil, nil, err
		}
	case *sql.ShowTables:
		tag, cols = "SHOW", []string{"Schema", "Name", "Type", "Owner"}
	case *sql.ShowSchemas:
		tag, cols = "SHOW", []string{"Name", "Owner"}
	case *sql.Describe:
		tag, cols = "DESCRIBE", []string{"Column", "Type", "Collation", "Nullable", "Default"}
	case *sql.ShowTable:
		tag, cols = "SHOW", []string{"key", "value"}
		if x.Create {
			cols = []string{"createtab_stmt"}
		}
	}
	columns := make([]stmt.Column, len(cols))
	for i, c := range cols {
		columns[i] = stmt.Column{Name: c, Type: sql.Text}
	}
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		rows, err := s.show.showRows(ctx, st)
		if err != nil {
			return nil, err
		}
		br := engine.NewBatchRows(tag, []arrow.RecordBatch{stringRows(cols, rows)})
		if tag == "SHOW" && len(cols) == 1 && !isShowTable(st) {
			br.SetTag("SHOW")
		}
		return &stmt.Result{Columns: columns, Rows: br}, nil
	}
	return planFunc(run), columns, nil
}

func showColumnName(name string) string {
	n := strings.ToLower(name)
	if r, ok := reportNames[n]; ok {
		return r
	}
	return n
}

func (sh *showReader) showValue(name string) (string, error) {
	switch strings.ToLower(name) {
	case "transaction_read_only":
		if sh.tx.readOnly {
			return "on", nil
		}
		return "off", nil
	case "is_superuser":
		return "on", nil
	}
	return sh.settings.Get(name)
}

func (sh *showReader) showRows(ctx context.Context, st sql.Statement) ([][]string, error) {
	switch x := st.(type) {
	case *sql.Show:
		if strings.EqualFold(x.Name, "all") {
			var rows [][]string
			for _, kv := range sh.settings.All() {
				rows = append(rows, []string{kv[0], kv[1], ""})
			}
			return rows, nil
		}
		v, err := sh.showValue(x.Name)
		if err != nil {
			return nil, err
		}
		return [][]string{{v}}, nil
	case *sql.ShowSchemas:
		names, err := sh.engine.wh.Tables().ListNamespaces(ctx)
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		var rows [][]string
		for _, n := range names {
			rows = append(rows, []string{n, sh.info.User})
		}
		return rows, nil
	case *sql.ShowTables:
		return sh.tableRows(ctx, x.Schema)
	case *sql.Describe:
		return sh.describeRows(ctx, x.Table)
	case *sql.ShowTable:
		return sh.showTableRows(ctx, x)
	}
	return nil, notSupported("this statement is not supported")
}

// describeView lists a view's columns as its query gives them now.
func (sh *showReader) describeView(ctx context.Context, v *logical.Table) ([][]string, error) {
	cols, err := logical.ViewColumns(ctx, sh.env().PlanEnv(), v.View)
	if err != nil {
		return nil, err
	}
	rows := make([][]string, len(cols))
	for i, c := range cols {
		rows[i] = []string{c.Name, c.Type.String(), "", "", ""}
	}
	return rows, nil
}

// tableRows lists tables of one schema, or of every schema on search_path.
func (sh *showReader) tableRows(ctx context.Context, schema string) ([][]string, error) {
	schemas := []string{schema}
	if schema == "" {
		schemas = sh.names.searchPath()
	} else if ok, err := sh.engine.wh.Tables().NamespaceExists(ctx, schema); err != nil {
		return nil, err
	} else if !ok {
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
	}
	var rows [][]string
	for _, ns := range schemas {
		ok, err := sh.engine.wh.Tables().NamespaceExists(ctx, ns)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		names, err := sh.engine.wh.Tables().ListTables(ctx, ns)
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		for _, n := range names {
			rows = append(rows, []string{ns, n, "table", sh.info.User})
		}
	}
	return rows, nil
}

// describeRows lists a table's columns as psql's \d does.
func (sh *showReader) describeRows(ctx context.Context, n sql.TableName) ([][]string, error) {
	rt, err := sh.names.resolveTable(ctx, n)
	var vn *viewNamed
	if errors.As(err, &vn) {
		return sh.describeView(ctx, vn.view)
	}
	if err != nil {
		return nil, err
	}
	var rows [][]string
	if rt.Meta != "" {
		cols, err := engine.MetaColumns(ctx, rt)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			rows = append(rows, []string{c.Name, c.Type.String(), "", "", ""})
		}
		return rows, nil
	}
	declared := sql.DeclaredTypes(rt.Table.Properties(), rt.Table.Schema().Fields())
	for i, f := range rt.Table.Schema().Fields() {
		nullable := ""
		if f.Required {
			nullable = "not null"
		}
		t := sql.TypeFromIceberg(f.Type)
		if d, ok := declared[i]; ok {
			t = d // varchar(n), smallint: what the table was created with
		}
		rows = append(rows, []string{f.Name, t.String(), "", nullable, ""})
	}
	return rows, nil
}

// stringRows builds a text batch with the given column names.
func stringRows(cols []string, rows [][]string) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for c, name := range cols {
		fields[c] = arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for _, r := range rows {
			b.Append(r[c])
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	rb := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(rows)))
	for _, a := range arrs {
		a.Release()
	}
	return rb
}
