import java.sql.*;

// JdbcBrowse prints what DatabaseMetaData answers, one line per row, columns
// separated by '|', for the Go test to compare between servers.
public class JdbcBrowse {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "postgres", "")) {
            DatabaseMetaData md = c.getMetaData();
            dump("getSchemas", md.getSchemas(), 1, 2);
            dump("getTables public %", md.getTables(null, "public", "%", new String[]{"TABLE"}), 2, 3, 4);
            dump("getTables null null", md.getTables(null, null, null, new String[]{"TABLE", "PARTITIONED TABLE", "VIEW"}), 2, 3, 4);
            dump("getTables s% pattern", md.getTables(null, "s%", "%e%", null), 2, 3, 4);
            dump("getColumns all", md.getColumns(null, null, "%", null), 2, 3, 4, 5, 6, 7, 9, 10, 11, 17, 18);
            dump("getColumns public t", md.getColumns(null, "public", "t", null), 2, 3, 4, 5, 6, 7, 9, 10, 11, 17, 18);
            dump("getPrimaryKeys", md.getPrimaryKeys(null, "public", "t"), 2, 3, 4, 5);
            dump("getTypeInfo", md.getTypeInfo(), 1, 2, 3, 7, 10);
        }
    }

    static void dump(String title, ResultSet rs, int... cols) throws SQLException {
        System.out.println("# " + title);
        while (rs.next()) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < cols.length; i++) {
                if (i > 0) b.append('|');
                b.append(rs.getString(cols[i]));
            }
            System.out.println(b);
        }
        rs.close();
    }
}
