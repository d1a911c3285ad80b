package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

func isShowTable(st sql.Statement) bool {
	_, ok := st.(*sql.ShowTable)
	return ok
}

// showTableRows answers SHOW TBLPROPERTIES (key, value rows, the format
// version among them) and SHOW CREATE TABLE (one row: the statement that
// makes the table again, its location as a comment).
func (sh *showReader) showTableRows(ctx context.Context, st *sql.ShowTable) ([][]string, error) {
	rt, err := sh.names.resolveTable(ctx, st.Table)
	var vn *viewNamed
	if errors.As(err, &vn) && st.Create {
		ident := vn.view.Ident
		return [][]string{{fmt.Sprintf("CREATE VIEW %s (%s) AS\n%s", qualifiedName(ident), strings.Join(vn.view.View.Columns, ", "), vn.view.View.SQL)}}, nil
	}
	if err != nil {
		return nil, err
	}
	if rt.Meta != "" {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is a metadata table", st.Table.Table)
	}
	props := lake.TableProperties(rt.Table)
	if !st.Create {
		rows := make([][]string, len(props))
		for i, kv := range props {
			rows[i] = []string{kv[0], kv[1]}
		}
		return rows, nil
	}
	return [][]string{{createTableText(rt, props)}}, nil
}

// createTableText is CREATE TABLE schema.name (columns) PARTITIONED BY
// (...) WITH (...), in magmalake's syntax.
func createTableText(rt *resolvedTable, props [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", qualifiedName(rt.Ident))
	declared := sql.DeclaredTypes(rt.Table.Properties(), rt.Table.Schema().Fields())
	fields := rt.Table.Schema().Fields()
	for i, f := range fields {
		t := sql.TypeFromIceberg(f.Type)
		if d, ok := declared[i]; ok {
			t = d
		}
		fmt.Fprintf(&b, "  %s %s", sql.QuoteIdent(f.Name), t)
		if f.Required {
			b.WriteString(" NOT NULL")
		}
		if i < len(fields)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(")")
	if parts := partitionTerms(rt.Table.Spec(), rt.Table.Schema()); len(parts) > 0 {
		fmt.Fprintf(&b, "\nPARTITIONED BY (%s)", strings.Join(parts, ", "))
	}
	var kv []string
	for _, p := range props {
		if strings.HasPrefix(p[0], sql.DeclaredTypePrefix) {
			continue // the column types above say it
		}
		kv = append(kv, fmt.Sprintf("%s = %s", sqlString(p[0]), sqlString(p[1])))
	}
	if len(kv) > 0 {
		fmt.Fprintf(&b, "\nWITH (%s)", strings.Join(kv, ", "))
	}
	fmt.Fprintf(&b, "\n-- location: %s", rt.Table.Location())
	return b.String()
}

// partitionTerms spells the current partition spec as PARTITIONED BY
// takes it: col, bucket(n, col), truncate(w, col), year(col), ...
func partitionTerms(spec iceberg.PartitionSpec, sc *iceberg.Schema) []string {
	var out []string
	for _, f := range spec.Fields() {
		col, ok := sc.FindColumnName(f.SourceID())
		if !ok {
			continue
		}
		col = sql.QuoteIdent(col)
		switch t := f.Transform.(type) {
		case iceberg.IdentityTransform:
			out = append(out, col)
		case iceberg.BucketTransform:
			out = append(out, fmt.Sprintf("bucket(%d, %s)", t.NumBuckets, col))
		case iceberg.TruncateTransform:
			out = append(out, fmt.Sprintf("truncate(%d, %s)", t.Width, col))
		case iceberg.VoidTransform:
		default:
			out = append(out, fmt.Sprintf("%s(%s)", t.String(), col))
		}
	}
	return out
}

func qualifiedName(ident []string) string {
	parts := make([]string, len(ident))
	for i, p := range ident {
		parts[i] = sql.QuoteIdent(p)
	}
	return strings.Join(parts, ".")
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
