// pgjdbc's date and timestamp parameters: setDate sends '2024-04-11 +00' and
// setTimestamp '2024-04-11 10:11:12.5+00', both with an unspecified type.
// Prints a transcript the Go test compares, the same against PostgreSQL.
import java.sql.*;
import java.util.*;

public class E2EDates {
    static String env(String k) { return System.getenv(k); }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", env("E2E_USER"));
        props.setProperty("password", env("E2E_PASSWORD"));
        String table = env("E2E_TABLE");
        String[] days = {"2024-04-11", "2024-02-29", "1999-12-31", "1970-01-01", "2038-01-19"};
        try (Connection c = DriverManager.getConnection(env("E2E_URL"), props)) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + table + " (id bigint NOT NULL, d date, ts timestamp, tstz timestamptz)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?, ?)")) {
                for (int i = 0; i < days.length; i++) {
                    ps.setLong(1, i + 1);
                    ps.setDate(2, java.sql.Date.valueOf(days[i]));
                    ps.setTimestamp(3, Timestamp.valueOf(days[i] + " 10:11:12.5"));
                    ps.setTimestamp(4, Timestamp.valueOf(days[i] + " 23:59:59.123456"));
                    ps.addBatch();
                }
                ps.setLong(1, days.length + 1);
                ps.setNull(2, Types.DATE);
                ps.setNull(3, Types.TIMESTAMP);
                ps.setNull(4, Types.TIMESTAMP);
                ps.addBatch();
                System.out.println("batch " + Arrays.stream(ps.executeBatch()).sum());
            }
            // Past the 5th execution pgjdbc switches to a named statement.
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE d = ?")) {
                for (String d : new String[] {"1999-12-31", "1999-12-31", "2000-01-01", "2038-01-19", "1970-01-01", "1970-01-01"}) {
                    ps.setDate(1, java.sql.Date.valueOf(d));
                    System.out.println("delete " + d + " " + ps.executeUpdate());
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id, d, ts, tstz FROM " + table + " WHERE d >= ? OR d IS NULL ORDER BY id")) {
                ps.setDate(1, java.sql.Date.valueOf("2000-01-01"));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        System.out.println("row " + rs.getLong(1) + " " + rs.getDate(2) + " " + rs.getTimestamp(3) + " " + rs.getTimestamp(4)
                            + " | " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4));
                    }
                }
            }
        }
    }
}
