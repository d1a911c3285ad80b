package pgtest

import (
	"net"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// One cluster answers text rows, NULLs, tags and errors the way the
// comparisons rely on, over the socket and, when asked, over TCP.
func TestClusterAnswers(t *testing.T) {
	c := StartWith(t, Options{Locale: "C.UTF-8", TCP: true})
	conn := c.Connect(t, "postgres")
	res, pe := Exec(t, conn, "SELECT 1::int, NULL::text, 'a b'; CREATE TABLE x (a int)")
	if pe != nil {
		t.Fatalf("unexpected error %s", pe.Code)
	}
	if len(res) != 2 || res[1].CommandTag.String() != "CREATE TABLE" {
		t.Fatalf("results %v", res)
	}
	rows := Text(res[0])
	if len(rows) != 1 || *rows[0][0] != "1" || rows[0][1] != nil || *rows[0][2] != "a b" {
		t.Fatalf("rows %v", rows)
	}
	res, pe = Exec(t, conn, "SELECT 2; SELECT 1/0; SELECT 3")
	if pe == nil || pgerr.Code(pe.Code) != pgerr.DivisionByZero || len(res) != 1 {
		t.Fatalf("want 22012 after one result, got %v %v", pe, res)
	}
	res, pe = Exec(t, conn, "SELECT 1 AS a, 'x' AS b WHERE false")
	if pe != nil || len(res) != 1 || len(res[0].FieldDescriptions) != 2 || res[0].FieldDescriptions[1].Name != "b" {
		t.Fatalf("a result without rows keeps its columns: %v %v", res, pe)
	}
	var collate string
	if err := conn.QueryRow(t.Context(), "SELECT datcollate FROM pg_database WHERE datname = 'postgres'").Scan(&collate); err != nil || collate != "C.UTF-8" {
		t.Fatalf("collation %q %v", collate, err)
	}
	nc, err := net.Dial("tcp", c.Addr())
	if err != nil {
		t.Fatalf("TCP: %v", err)
	}
	nc.Close()
}

// Without options the cluster collates in C and listens on no TCP port.
func TestDefaultCluster(t *testing.T) {
	c := Start(t)
	conn := c.Connect(t, "postgres")
	res, pe := Exec(t, conn, "SHOW lc_collate")
	if pe != nil || *Text(res[0])[0][0] != "C" {
		t.Fatalf("lc_collate %v %v", res, pe)
	}
	if nc, err := net.Dial("tcp", c.Addr()); err == nil {
		nc.Close()
		t.Fatal("default cluster listens on TCP")
	}
}
