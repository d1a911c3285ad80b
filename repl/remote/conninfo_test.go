package remote

import (
	"maps"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestParseConnString(t *testing.T) {
	tests := []struct {
		in      string
		want    Settings
		wantErr string
	}{
		{in: "host=h port=5433", want: Settings{"host": "h", "port": "5433"}},
		{in: "  host = h\tdbname='a b' user=\\'q  ", want: Settings{"host": "h", "dbname": "a b", "user": "'q"}},
		{in: `password='it\'s \\ here' database=d`, want: Settings{"password": `it's \ here`, "dbname": "d"}},
		{in: "host=", want: Settings{"host": ""}},
		{in: "host", wantErr: `missing "=" after "host" in connection info string`},
		{in: "host='h", wantErr: "unterminated quoted string in connection info string"},
		{in: "postgres://", want: Settings{}},
		{in: "postgresql://u:p%3Aw@h:1/d?sslmode=verify-full&connect_timeout=3",
			want: Settings{"user": "u", "password": "p:w", "host": "h", "port": "1", "dbname": "d", "sslmode": "verify-full", "connect_timeout": "3"}},
		{in: "postgres://u@/d?host=%2Ftmp", want: Settings{"user": "u", "dbname": "d", "host": "/tmp"}},
		{in: "postgres://%2Fvar%2Frun/d", want: Settings{"host": "/var/run", "dbname": "d"}},
		{in: "postgres://[::1]:5433/d", want: Settings{"host": "::1", "port": "5433", "dbname": "d"}},
		{in: "postgres://a:1,b/d", want: Settings{"host": "a,b", "port": "1,", "dbname": "d"}},
		{in: "postgres://h?ssl=true", want: Settings{"host": "h", "sslmode": "require"}},
		{in: "postgres://[::1/d", wantErr: `end of string reached when looking for matching "]" in IPv6 host address in URI: "[::1"`},
		{in: "postgres://h/d?sslmode", wantErr: `invalid URI query: missing key/value separator "=" in "sslmode"`},
	}
	for _, tt := range tests {
		got, err := ParseConnString(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tt.want) {
			t.Errorf("%q: %v %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

// Settings.String quotes every value so that pgconn reads back what was
// set, however odd.
func TestSettingsStringRoundTrip(t *testing.T) {
	st := Settings{"host": "/tmp/a b", "port": "5433", "user": `o'neil`, "password": `back\slash 'and' quotes`, "dbname": "db=x", "sslmode": "disable"}
	cfg, err := pgconn.ParseConfig(st.String())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != st["host"] || cfg.Port != 5433 || cfg.User != st["user"] || cfg.Password != st["password"] || cfg.Database != st["dbname"] {
		t.Errorf("pgconn read %q %d %q %q %q", cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database)
	}
	again, err := ParseConnString(st.String())
	if err != nil || !maps.Equal(again, st) {
		t.Errorf("ParseConnString(String()) = %v %v", again, err)
	}
}

func TestIsConnString(t *testing.T) {
	for s, want := range map[string]bool{"mydb": false, "postgres://h": true, "postgresql://": true, "host=h": true, "select 1": false} {
		if IsConnString(s) != want {
			t.Errorf("IsConnString(%q) = %v", s, !want)
		}
	}
}
