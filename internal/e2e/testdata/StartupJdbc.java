// Startup parameters through pgjdbc, as one deterministic program: the
// options and currentSchema connection properties (pgjdbc also sends
// DateStyle, client_encoding, extra_float_digits and TimeZone itself), then
// what the session shows, or the refusal's SQLSTATE and message. The Go test
// (TestDiffStartupOptionsClients) compares the output with the same
// program's on PostgreSQL 15. Run with -Duser.timezone=UTC.
import java.sql.*;
import java.util.*;

public class StartupJdbc {
    static final String[][] CASES = {
        {"options", "-c statement_timeout=30s"},
        {"options", "-c search_path=a,\\ b --lock-timeout=2s"},
        {"currentSchema", "s1,public"},
        {"options", "-c statement_timeout=abc"},
        {"options", "-c no_such_parameter=1"},
        {"options", "-c jit=maybe"},
    };

    public static void main(String[] args) throws Exception {
        String url = System.getenv("E2E_URL");
        for (String[] c : CASES) {
            System.out.println("## " + c[0] + "=" + c[1]);
            Properties p = new Properties();
            p.setProperty("user", System.getenv("E2E_USER"));
            p.setProperty(c[0], c[1]);
            try (Connection conn = DriverManager.getConnection(url, p); Statement st = conn.createStatement()) {
                for (String name : new String[] {"statement_timeout", "lock_timeout", "search_path", "DateStyle", "extra_float_digits", "client_encoding"}) {
                    try (ResultSet rs = st.executeQuery("SHOW " + name)) {
                        rs.next();
                        System.out.println(name + " " + rs.getString(1));
                    }
                }
            } catch (SQLException e) {
                System.out.println("refused " + e.getSQLState() + " " + e.getMessage());
            }
        }
    }
}
