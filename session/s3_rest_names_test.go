package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// Odd names on the REST catalog over S3 (issue 48). The server chooses
// the locations and may restrict names further than the protocol
// (SeaweedFS takes a-z, 0-9, '_' and '-'): a name it takes reads back as
// written; one it refuses is 42602 with its reason (it was XX000); one no
// catalog takes is refused before the request. The session goes on.
func TestS3RESTOddNames(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	s := testSessionOn(t, testEngineWith(t, lake.Config{CatalogName: "rest", CatalogProps: srv.RESTProps("warehouse")}))
	for _, name := range []string{"my table", "a.b", "ünï", "50%", `x"y`, "%2e%2e%2fx", "lower_case-1"} {
		q := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		for _, create := range []string{"CREATE SCHEMA " + q, "CREATE TABLE public." + q + " (" + q + " int)"} {
			_, err := s.query(t.Context(), create)
			var se *pgerr.Error
			switch {
			case err == nil:
			case errors.As(err, &se) && se.Code == pgerr.InvalidName && strings.Contains(se.Message, "refused by the REST catalog: "):
				continue
			default:
				t.Fatalf("%s: %v", create, err)
			}
			if strings.HasPrefix(create, "CREATE SCHEMA") {
				mustQuery(t, s, "DROP SCHEMA "+q)
				continue
			}
			mustQuery(t, s, "INSERT INTO public."+q+" VALUES (1), (2)")
			if got := mustQuery(t, s, "SELECT sum("+q+") FROM public."+q).text(); got != "3\n" {
				t.Errorf("%s: sum %q", name, got)
			}
			mustQuery(t, s, "DROP TABLE public."+q)
		}
	}
	mustFail(t, s, pgerr.InvalidName, `CREATE TABLE "a/b" (id int)`)
	mustFail(t, s, pgerr.InvalidName, `CREATE SCHEMA "../x"`)
	if got := mustQuery(t, s, "SELECT 1").text(); got != "1\n" {
		t.Fatalf("after the refusals: %q", got)
	}
}
