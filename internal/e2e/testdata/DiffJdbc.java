// What pgjdbc users do, as one deterministic script: typed setters in a
// batch INSERT, setNull of several types, parameters in WHERE and in the
// select list, DatabaseMetaData for the table, setAutoCommit(false) with DDL
// then rollback and commit, and a setFetchSize cursor. Every value read is
// printed as its getObject class, its toString and getString, so the Go test
// (TestDiffPgjdbc) can compare the output line by line with the same
// program's on PostgreSQL 15. Run with -Duser.timezone=UTC.
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class DiffJdbc {
    static String env(String k) { return System.getenv(k); }

    static void print(String s) { System.out.println(s); }

    // show is a value as the driver hands it over: class and toString.
    static String show(Object o) {
        if (o == null) return "null";
        if (o instanceof byte[]) {
            StringBuilder b = new StringBuilder("byte[]=");
            for (byte x : (byte[]) o) b.append(String.format("%02x", x));
            return b.toString();
        }
        return o.getClass().getName() + "=" + o;
    }

    // dump prints a result set: column labels and type names, then every
    // row as getObject and getString per column.
    static void dump(String what, ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        StringBuilder h = new StringBuilder(what + " columns");
        for (int i = 1; i <= md.getColumnCount(); i++) {
            h.append(" ").append(md.getColumnLabel(i));
            h.append(":").append(md.getColumnTypeName(i)).append("/").append(md.getColumnType(i));
        }
        print(h.toString());
        int n = 0;
        while (rs.next()) {
            n++;
            for (int i = 1; i <= md.getColumnCount(); i++) {
                print(what + " row " + n + " " + md.getColumnLabel(i) + " " + show(rs.getObject(i)) + " | " + rs.getString(i));
            }
        }
        print(what + " rows " + n);
    }

    static void query(Connection c, String what, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            dump(what, rs);
        }
    }

    // sqlState runs sql and prints the SQLSTATE it fails with, or ok.
    static void sqlState(Connection c, String what, String sql) {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
            print(what + " ok");
        } catch (SQLException e) {
            print(what + " error " + e.getSQLState());
        }
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", env("E2E_USER"));
        props.setProperty("password", env("E2E_PASSWORD"));
        String t = env("E2E_TABLE");
        try (Connection c = DriverManager.getConnection(env("E2E_URL"), props)) {
            typed(c, t);
            parameters(c, t);
            metadata(c, t);
            transactions(c, t);
            fetchSize(c, t);
            javaTime(c, t);
        }
    }

    static void typed(Connection c, String t) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + t + " (id integer NOT NULL, i2 smallint, i8 bigint, f4 real, f8 double precision,"
                + " n numeric(30,6), s text, v varchar(20), b boolean, d date, tm time, ts timestamp, tz timestamptz,"
                + " by bytea, u uuid)");
        }
        String ins = "INSERT INTO " + t + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(ins)) {
            ps.setInt(1, 1);
            ps.setShort(2, (short) 12);
            ps.setLong(3, 1234567890123L);
            ps.setFloat(4, 1.5f);
            ps.setDouble(5, 2.25);
            ps.setBigDecimal(6, new BigDecimal("123.45"));
            ps.setString(7, "hello");
            ps.setString(8, "varchar");
            ps.setBoolean(9, true);
            ps.setDate(10, java.sql.Date.valueOf("2024-04-11"));
            ps.setTime(11, java.sql.Time.valueOf("10:11:12"));
            ps.setTimestamp(12, Timestamp.valueOf("2024-04-11 10:11:12.123456"));
            ps.setTimestamp(13, Timestamp.valueOf("2024-04-11 23:59:59.5"));
            ps.setBytes(14, new byte[] {0, 1, (byte) 0xfe, (byte) 0xff});
            ps.setObject(15, UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
            ps.addBatch();

            ps.setInt(1, 2);
            ps.setShort(2, Short.MIN_VALUE);
            ps.setLong(3, Long.MIN_VALUE);
            ps.setFloat(4, -0.1f);
            ps.setDouble(5, -1e300);
            ps.setBigDecimal(6, new BigDecimal("-999999999999999999999999.999999"));
            ps.setString(7, "it's \"quoted\" \\ back");
            ps.setString(8, "");
            ps.setBoolean(9, false);
            ps.setDate(10, java.sql.Date.valueOf("1970-01-01"));
            ps.setTime(11, java.sql.Time.valueOf("00:00:00"));
            ps.setTimestamp(12, Timestamp.valueOf("1999-12-31 23:59:59"));
            ps.setTimestamp(13, Timestamp.valueOf("2000-01-01 00:00:00"), Calendar.getInstance(TimeZone.getTimeZone("GMT+02:00")));
            ps.setBytes(14, new byte[0]);
            ps.setObject(15, UUID.fromString("00000000-0000-0000-0000-000000000000"));
            ps.addBatch();

            ps.setInt(1, 3);
            ps.setShort(2, Short.MAX_VALUE);
            ps.setLong(3, Long.MAX_VALUE);
            ps.setFloat(4, Float.MAX_VALUE);
            ps.setDouble(5, Double.MIN_VALUE);
            ps.setBigDecimal(6, new BigDecimal("0.000001"));
            ps.setString(7, "ünïcødé ✓");
            ps.setString(8, "twenty chars long!!!");
            ps.setObject(9, Boolean.TRUE);
            ps.setDate(10, java.sql.Date.valueOf("2038-01-19"));
            ps.setTime(11, java.sql.Time.valueOf("23:59:59"));
            ps.setTimestamp(12, Timestamp.valueOf("2038-01-19 03:14:07.999999"));
            ps.setTimestamp(13, Timestamp.valueOf("2024-02-29 12:00:00"));
            ps.setBytes(14, "bytes".getBytes());
            ps.setObject(15, UUID.fromString("ffffffff-ffff-ffff-ffff-ffffffffffff"));
            ps.addBatch();

            // BigDecimal scales: integral, more digits than the column's
            // scale (rounded), a scale-less large value.
            ps.setInt(1, 4);
            ps.setShort(2, (short) 0);
            ps.setLong(3, 0);
            ps.setFloat(4, 0f);
            ps.setDouble(5, 0.1);
            ps.setBigDecimal(6, new BigDecimal("1E+5"));
            for (int i = 7; i <= 15; i++) ps.setNull(i, Types.NULL);
            ps.addBatch();

            ps.setInt(1, 5);
            ps.setNull(2, Types.SMALLINT);
            ps.setNull(3, Types.BIGINT);
            ps.setNull(4, Types.REAL);
            ps.setNull(5, Types.DOUBLE);
            ps.setBigDecimal(6, new BigDecimal("3.14159265358979"));
            ps.setNull(7, Types.VARCHAR);
            ps.setNull(8, Types.VARCHAR);
            ps.setNull(9, Types.BOOLEAN);
            ps.setNull(10, Types.DATE);
            ps.setNull(11, Types.TIME);
            ps.setNull(12, Types.TIMESTAMP);
            ps.setNull(13, Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setNull(14, Types.BINARY);
            ps.setNull(15, Types.OTHER);
            ps.addBatch();

            ps.setInt(1, 6);
            ps.setObject(2, 7, Types.SMALLINT);
            ps.setObject(3, 8L);
            ps.setObject(4, 9.5f);
            ps.setObject(5, 10.25);
            ps.setBigDecimal(6, new BigDecimal("123456789012345678901234.5"));
            ps.setObject(7, "object");
            ps.setObject(8, "v", Types.VARCHAR);
            ps.setObject(9, "true", Types.BOOLEAN);
            ps.setObject(10, java.sql.Date.valueOf("2000-02-29"));
            ps.setObject(11, java.sql.Time.valueOf("12:34:56"));
            ps.setObject(12, Timestamp.valueOf("2000-02-29 12:34:56.7"));
            ps.setObject(13, Timestamp.valueOf("2000-02-29 12:34:56.7"));
            ps.setObject(14, new byte[] {42});
            ps.setObject(15, "123e4567-e89b-12d3-a456-426614174000", Types.OTHER);
            ps.addBatch();
            print("batch " + Arrays.toString(ps.executeBatch()));
        }
        query(c, "typed", "SELECT * FROM " + t + " ORDER BY id");
    }

    static void parameters(Connection c, String t) throws SQLException {
        String[] wheres = {"i2 = ?", "i8 = ?", "n = ?", "n > ?", "s = ?", "v = ?", "b = ?", "d = ?", "d < ?", "tm = ?", "ts = ?", "tz = ?", "f8 = ?"};
        for (String w : wheres) {
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + t + " WHERE " + w + " ORDER BY id")) {
                switch (w) {
                    case "i2 = ?": ps.setShort(1, (short) 12); break;
                    case "i8 = ?": ps.setLong(1, Long.MAX_VALUE); break;
                    case "n = ?": ps.setBigDecimal(1, new BigDecimal("123.450")); break;
                    case "n > ?": ps.setBigDecimal(1, new BigDecimal("-1")); break;
                    case "s = ?": ps.setString(1, "hello"); break;
                    case "v = ?": ps.setString(1, ""); break;
                    case "b = ?": ps.setBoolean(1, true); break;
                    case "d = ?": ps.setDate(1, java.sql.Date.valueOf("2024-04-11")); break;
                    case "d < ?": ps.setDate(1, java.sql.Date.valueOf("2024-04-11")); break;
                    case "tm = ?": ps.setTime(1, java.sql.Time.valueOf("23:59:59")); break;
                    case "ts = ?": ps.setTimestamp(1, Timestamp.valueOf("2024-04-11 10:11:12.123456")); break;
                    case "tz = ?": ps.setTimestamp(1, Timestamp.valueOf("2024-02-29 12:00:00")); break;
                    case "f8 = ?": ps.setDouble(1, 2.25); break;
                }
                try (ResultSet rs = ps.executeQuery()) {
                    StringBuilder b = new StringBuilder("where " + w + ":");
                    while (rs.next()) b.append(" ").append(rs.getInt(1));
                    print(b.toString());
                }
            }
        }
        // Parameters in the select list, typed by the setter.
        try (PreparedStatement ps = c.prepareStatement("SELECT ? AS i, ? AS l, ? AS n, ? AS s, ? AS b, ? AS d, ? AS f, ? AS k")) {
            ps.setInt(1, 42);
            ps.setLong(2, -42L);
            ps.setBigDecimal(3, new BigDecimal("-0.50"));
            ps.setString(4, "str");
            ps.setBoolean(5, false);
            ps.setDouble(6, 0.5);
            ps.setFloat(7, 0.25f);
            ps.setShort(8, (short) -3);
            try (ResultSet rs = ps.executeQuery()) {
                dump("select-list", rs);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t + " SET s = ?, n = n + ? WHERE id >= ?")) {
            ps.setString(1, "updated");
            ps.setBigDecimal(2, new BigDecimal("0.5"));
            ps.setInt(3, 5);
            print("update " + ps.executeUpdate());
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t + " WHERE id = ?")) {
            for (int id : new int[] {4, 4, 99}) {
                ps.setInt(1, id);
                ps.addBatch();
            }
            print("delete batch " + Arrays.toString(ps.executeBatch()));
        }
        query(c, "after-dml", "SELECT id, s, n FROM " + t + " ORDER BY id");
        sqlState(c, "bad-int", "INSERT INTO " + t + " (id, i2) VALUES (7, 'x')");
        sqlState(c, "not-null", "INSERT INTO " + t + " (i2) VALUES (1)");
        sqlState(c, "overflow", "INSERT INTO " + t + " (id, i2) VALUES (7, 40000)");
    }

    // metadata compares what both systems can mean the same: schema, name
    // and type of the table; per column its name, JDBC type, type name,
    // size, digits, nullability and position. The catalog name is left
    // out (PostgreSQL's is the database), and so are REMARKS,
    // COLUMN_DEF and the SOURCE_DATA_TYPE/SCOPE_* columns, null on both.
    static void metadata(Connection c, String t) throws SQLException {
        // A view's columns as its query types them: sum(numeric) is
        // numeric, varchar(2) and smallint keep their types.
        try (Statement st = c.createStatement()) {
            st.execute("CREATE VIEW " + t + "_v AS SELECT sum(n) AS sn, 'ab'::varchar(2) AS v2, i2, max(v) AS mv FROM " + t + " GROUP BY i2");
        }
        columns(c.getMetaData(), t + "_v");
        columns(c.getMetaData(), t);
        DatabaseMetaData md = c.getMetaData();
        try (ResultSet rs = md.getTables(null, "public", t, new String[] {"TABLE"})) {
            while (rs.next()) {
                print("table " + rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + " " + rs.getString("TABLE_TYPE"));
            }
        }
        try (ResultSet rs = md.getPrimaryKeys(null, "public", t)) {
            int n = 0;
            while (rs.next()) n++;
            print("primary keys " + n);
        }
    }

    // columns prints getColumns for the relation t.
    static void columns(DatabaseMetaData md, String t) throws SQLException {
        try (ResultSet rs = md.getColumns(null, "public", t, null)) {
            while (rs.next()) {
                print("column " + t + " " + rs.getInt("ORDINAL_POSITION") + " " + rs.getString("COLUMN_NAME")
                    + " type=" + rs.getInt("DATA_TYPE") + "/" + rs.getString("TYPE_NAME")
                    + " size=" + rs.getInt("COLUMN_SIZE") + " digits=" + rs.getInt("DECIMAL_DIGITS")
                    + " radix=" + rs.getInt("NUM_PREC_RADIX")
                    + " nullable=" + rs.getInt("NULLABLE") + "/" + rs.getString("IS_NULLABLE")
                    + " auto=" + rs.getString("IS_AUTOINCREMENT"));
            }
        }
    }

    static void transactions(Connection c, String t) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + t + "_rb (id integer, s text)");
            print("rollback insert " + st.executeUpdate("INSERT INTO " + t + "_rb VALUES (1, 'a'), (2, 'b')"));
            c.rollback();
        }
        sqlState(c, "after rollback", "SELECT * FROM " + t + "_rb");
        c.rollback();
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + t + "_cm (id integer, s text)");
            print("commit insert " + st.executeUpdate("INSERT INTO " + t + "_cm VALUES (1, 'a'), (2, 'b')"));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + "_cm VALUES (?, ?)")) {
                ps.setInt(1, 3);
                ps.setString(2, "c");
                print("commit insert prepared " + ps.executeUpdate());
            }
            query(c, "in-tx", "SELECT id, s FROM " + t + "_cm ORDER BY id");
            c.commit();
        }
        c.setAutoCommit(true);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + "_cm VALUES (?, ?)", new String[] {"id"})) {
            ps.setInt(1, 4);
            ps.setString(2, "d");
            print("generated insert " + ps.executeUpdate());
            try (ResultSet rs = ps.getGeneratedKeys()) {
                dump("generated", rs);
            }
        }
        query(c, "committed", "SELECT id, s FROM " + t + "_cm ORDER BY id");
    }

    static void fetchSize(Connection c, String t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + "_cm VALUES (?, ?)")) {
            for (int i = 10; i < 30; i++) {
                ps.setInt(1, i);
                ps.setString(2, "r" + i);
                ps.addBatch();
            }
            print("fetch batch " + Arrays.stream(ps.executeBatch()).sum());
        }
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("SELECT id, s FROM " + t + "_cm WHERE id >= ? ORDER BY id")) {
            ps.setFetchSize(4);
            ps.setInt(1, 2);
            try (ResultSet rs = ps.executeQuery()) {
                StringBuilder b = new StringBuilder("fetch");
                while (rs.next()) b.append(" ").append(rs.getInt(1)).append(":").append(rs.getString(2));
                print(b.toString());
            }
        }
        try (Statement st = c.createStatement()) {
            st.setFetchSize(7);
            try (ResultSet rs = st.executeQuery("SELECT count(*), sum(id) FROM " + t + "_cm")) {
                dump("fetch-agg", rs);
            }
        }
        c.commit();
        c.setAutoCommit(true);
    }

    // javaTime is JDBC 4.2's java.time through setObject and
    // getObject(i, Class).
    static void javaTime(Connection c, String t) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + t + "_jt (id integer, d date, tm time, ts timestamp, tz timestamptz)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + "_jt VALUES (?, ?, ?, ?, ?)")) {
            ps.setInt(1, 1);
            ps.setObject(2, java.time.LocalDate.of(2024, 4, 11));
            ps.setObject(3, java.time.LocalTime.of(10, 11, 12, 345678000));
            ps.setObject(4, java.time.LocalDateTime.of(2024, 4, 11, 10, 11, 12, 500000000));
            ps.setObject(5, java.time.OffsetDateTime.of(2024, 4, 11, 10, 11, 12, 0, java.time.ZoneOffset.ofHours(-5)));
            ps.addBatch();
            ps.setInt(1, 2);
            ps.setObject(2, java.time.LocalDate.of(1, 1, 1));
            ps.setObject(3, java.time.LocalTime.MIDNIGHT);
            ps.setObject(4, java.time.LocalDateTime.of(1900, 1, 1, 0, 0));
            ps.setObject(5, java.time.OffsetDateTime.of(1900, 1, 1, 0, 0, 0, 0, java.time.ZoneOffset.UTC));
            ps.addBatch();
            print("java.time batch " + Arrays.toString(ps.executeBatch()));
        }
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, d, tm, ts, tz FROM " + t + "_jt ORDER BY id")) {
            while (rs.next()) {
                print("java.time " + rs.getInt(1) + " " + rs.getObject(2, java.time.LocalDate.class)
                    + " " + rs.getObject(3, java.time.LocalTime.class)
                    + " " + rs.getObject(4, java.time.LocalDateTime.class)
                    + " " + rs.getObject(5, java.time.OffsetDateTime.class));
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + t + "_jt WHERE ts < ? ORDER BY id")) {
            ps.setObject(1, java.time.LocalDateTime.of(2000, 1, 1, 0, 0));
            try (ResultSet rs = ps.executeQuery()) {
                dump("java.time where", rs);
            }
        }
        // Not compared: setString into a date column (pgjdbc types the
        // parameter varchar) is 42804 on PostgreSQL, accepted by magmalake.
    }
}
