// The e2e scenario through pgjdbc; prints the transcript the Go test checks.
import java.io.StringReader;
import java.sql.*;
import java.util.*;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public class E2E {
    static String env(String k) { return System.getenv(k); }

    static String name(int id) { return id % 5 == 0 ? null : "n" + id; }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + env("E2E_HOST") + ":" + env("E2E_PORT") + "/e2e?sslmode=disable";
        Properties props = new Properties();
        props.setProperty("user", env("E2E_USER"));
        props.setProperty("password", env("E2E_PASSWORD"));
        String table = env("E2E_TABLE");
        int rows = Integer.parseInt(env("E2E_ROWS"));
        int copyRows = Integer.parseInt(env("E2E_COPY_ROWS"));
        List<Integer> deletes = new ArrayList<>();
        for (String d : env("E2E_DELETES").split(",")) deletes.add(Integer.parseInt(d));
        deletes.add(deletes.get(0));
        try (Connection c = DriverManager.getConnection(url, props)) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + table + " (id bigint NOT NULL, name text, score double precision)");
            }
            int inserted = 0;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?)")) {
                for (int id = 1; id <= rows; id++) {
                    ps.setLong(1, id);
                    ps.setString(2, name(id));
                    ps.setDouble(3, id + 0.5);
                    inserted += ps.executeUpdate();
                }
            }
            System.out.println("insert " + inserted);
            // From the 5th execution pgjdbc uses a named statement and binary.
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
                for (int id : deletes) {
                    ps.setLong(1, id);
                    System.out.println("delete " + id + " " + ps.executeUpdate());
                }
            }
            // setFetchSize only takes effect (portal suspension) outside autocommit.
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("SELECT id, name, score FROM " + table + " WHERE id > ? ORDER BY id")) {
                ps.setFetchSize(3);
                ps.setLong(1, 0);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        String n = rs.getString(2);
                        double score = rs.getDouble(3);
                        String extra = score == id + 0.5 ? "" : " (score " + score + ")";
                        System.out.println("row " + id + " " + (n == null ? "NULL" : n) + extra);
                    }
                }
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                try {
                    st.executeQuery("SELECT * FROM no_such_table");
                    System.out.println("error none");
                } catch (SQLException e) {
                    System.out.println("error " + e.getSQLState());
                }
                try (ResultSet rs = st.executeQuery("SELECT 1")) {
                    rs.next();
                    System.out.println("after-error " + rs.getInt(1));
                }
            }
            StringBuilder data = new StringBuilder();
            for (int id = rows + 1; id <= rows + copyRows; id++) data.append(id).append("\tc").append(id).append("\t0.25\n");
            CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
            System.out.println("copy " + cm.copyIn("COPY " + table + " FROM STDIN", new StringReader(data.toString())));
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
                rs.next();
                System.out.println("count " + rs.getLong(1));
            }
        }
    }
}
