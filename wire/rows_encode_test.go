package wire

import (
	"bytes"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// sendRowDescription writes what pgproto3 encodes for the same description.
func TestSendRowDescriptionMatchesPgproto3(t *testing.T) {
	cols := []stmt.Column{
		{Name: "?column?", Type: sql.Int32},
		{Name: "naïve", Type: sql.Text, TableOID: 16384, AttNum: 2},
		{Name: "", Type: sql.Int64, TableOID: 1 << 31, AttNum: -1},
		{Name: "b", Type: sql.Bool},
	}
	for _, formats := range [][]int16{nil, {0, 1, 1, 0}} {
		for _, n := range []int{0, 1, len(cols)} {
			want := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{}}
			for i, col := range cols[:n] {
				f := pgproto3.FieldDescription{Name: []byte(col.Name), TableOID: col.TableOID,
					TableAttributeNumber: uint16(col.AttNum), DataTypeOID: col.Type.OID(),
					DataTypeSize: col.Type.TypeSize(), TypeModifier: col.Type.Typmod()}
				if formats != nil {
					f.Format = formats[i]
				}
				want.Fields = append(want.Fields, f)
			}
			wantBytes, err := want.Encode([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			tr := &transport{out: []byte("prefix")}
			var fs []int16
			if formats != nil {
				fs = formats[:n]
			}
			tr.sendRowDescription(cols[:n], fs)
			if !bytes.Equal(tr.out, wantBytes) {
				t.Errorf("%d columns, formats %v:\n got %x\nwant %x", n, fs, tr.out, wantBytes)
			}
		}
	}
}
