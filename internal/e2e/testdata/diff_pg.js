// What node-postgres users do, as one deterministic script: parameters of
// every type magmalake stores (JS numbers, strings, booleans, Dates,
// Buffers, arrays, null), written and read back with the default type
// parsers, in WHERE and in the select list, and a transaction with DDL.
// Every value is printed as typeof (or its class) and a canonical string,
// so the Go test (TestDiffNodePostgres) can compare the output line by line
// with the same program's on PostgreSQL 15. Run with TZ=UTC.
const { Client } = require('pg');

const T = process.env.E2E_TABLE;

function show(v) {
  if (v === null) return 'null';
  if (v instanceof Date) return 'Date ' + (isNaN(v) ? 'Invalid' : v.toISOString());
  if (Buffer.isBuffer(v)) return 'Buffer ' + v.toString('hex');
  if (Array.isArray(v)) return 'Array [' + v.map(show).join(', ') + ']';
  if (typeof v === 'object') return 'object ' + JSON.stringify(v);
  return typeof v + ' ' + String(v);
}

function dump(what, res) {
  console.log(what, 'fields', res.fields.map((f) => f.name + ':' + f.dataTypeID).join(' '));
  res.rows.forEach((row, i) => {
    for (const f of res.fields) console.log(what, 'row', i + 1, f.name, show(row[f.name]));
  });
  console.log(what, res.command, res.rowCount);
}

async function attempt(c, what, q, params) {
  try {
    const res = await c.query(q, params);
    console.log(what, 'ok', res.command, res.rowCount);
  } catch (e) {
    console.log(what, 'error', e.code);
  }
}

async function main() {
  const c = new Client({
    host: process.env.E2E_HOST, port: Number(process.env.E2E_PORT), user: process.env.E2E_USER,
    password: process.env.E2E_PASSWORD || undefined, database: process.env.E2E_DB,
  });
  await c.connect();

  await c.query(`CREATE TABLE ${T} (id integer NOT NULL, i2 smallint, i8 bigint, f4 real, f8 double precision,
    n numeric(20,5), s text, v varchar(10), b boolean, d date, tm time, ts timestamp, tz timestamptz, bt bytea, u uuid)`);
  const rows = [
    [1, 12, 1234567890123, 1.5, 2.25, 123.45, 'hello', 'varchar', true, '2024-04-11', '10:11:12',
      '2024-04-11 10:11:12.123456', new Date(Date.UTC(2024, 3, 11, 23, 59, 59, 500)), Buffer.from([0, 1, 0xfe, 0xff]),
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    [2, -32768, '-9223372036854775808', -0.1, -1e300, '-999999999999999.99999', 'it\'s "quoted" \\ back', '', false,
      new Date(Date.UTC(1970, 0, 1)), '00:00:00', new Date(Date.UTC(1999, 11, 31, 23, 59, 59)),
      '2000-01-01 02:00:00+02', Buffer.alloc(0), '00000000-0000-0000-0000-000000000000'],
    [3, 32767, 9223372036854775807n, 3.4e38, 5e-324, '0.00001', 'ünïcødé ✓', 'ten chars!', 't', '2038-01-19',
      '23:59:59.999999', '2038-01-19 03:14:07.999999', '2024-02-29T12:00:00Z', '\\x6279746573',
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'],
    [4, 0, 0, 0, 0.1, 100000, null, null, null, null, null, null, null, null, null],
    [5, null, null, null, null, '3.141592653', 'x', 'y', 'false', '2000-02-29', '12:34:56.7', '2000-02-29T12:34:56.7',
      '2000-02-29 12:34:56.7-05:30', Buffer.from('*'), '{123e4567-e89b-12d3-a456-426614174000}'],
  ];
  for (const r of rows) {
    const res = await c.query(`INSERT INTO ${T} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      r.map((v) => (typeof v === 'bigint' ? v.toString() : v)));
    console.log('insert', r[0], res.command, res.rowCount);
  }
  dump('typed', await c.query(`SELECT * FROM ${T} ORDER BY id`));
  // The same rows as text: the server's output format for every type.
  const text = await c.query(`SELECT id, i2::text, i8::text, f4::text, f8::text, n::text, b::text, d::text, tm::text,
    ts::text, tz::text, bt::text, u::text FROM ${T} ORDER BY id`);
  for (const r of text.rows) console.log('text', Object.values(r).map(show).join(' | '));

  // Parameters in WHERE, one per type; pg sends them untyped, as text.
  const wheres = [
    ['i2', 12], ['i8', '9223372036854775807'], ['n', 123.45], ['n', '123.450'], ['f8', 2.25], ['f4', 1.5],
    ['s', 'hello'], ['v', ''], ['b', true], ['b', 'f'], ['d', '2024-04-11'], ['d', new Date(Date.UTC(2024, 3, 11))],
    ['tm', '23:59:59.999999'], ['ts', '2024-04-11 10:11:12.123456'], ['tz', '2024-02-29 14:00:00+02'],
    ['tz', new Date(Date.UTC(2024, 1, 29, 12))], ['bt', Buffer.from('*')], ['u', '00000000-0000-0000-0000-000000000000'],
    ['s', null],
  ];
  for (const [col, val] of wheres) {
    const res = await c.query(`SELECT id FROM ${T} WHERE ${col} = $1 ORDER BY id`, [val]);
    console.log('where', col, show(val), res.rows.map((r) => r.id).join(','));
  }
  // Arrays: ANY($1) with a JS array (sent as an array literal).
  const anys = [['id', [1, 3, 99]], ['s', ['hello', 'x', 'nope']], ['id', []], ['u', ['00000000-0000-0000-0000-000000000000']],
    ['d', ['2024-04-11', '2038-01-19']], ['n', [0.00001, 100000]]];
  for (const [col, vals] of anys) {
    const res = await c.query(`SELECT id FROM ${T} WHERE ${col} = ANY($1) ORDER BY id`, [vals]);
    console.log('any', col, show(vals), res.rows.map((r) => r.id).join(','));
  }

  // Typed parameters in the select list, read back with the default parsers.
  const selects = [
    ['$1::int2', 7], ['$1::int4', -7], ['$1::int8', '9007199254740993'], ['$1::float4', 0.1], ['$1::float8', 0.1],
    ['$1::numeric', '-0.50'], ['$1::numeric(10,3)', 1.23456], ['$1::text', 'text'], ['$1::varchar', 'vc'],
    ['$1::bool', true], ['$1::date', '2024-01-02'], ['$1::time', '03:04:05.5'], ['$1::timestamp', '2024-01-02 03:04:05'],
    ['$1::timestamptz', '2024-01-02 03:04:05+02'], ['$1::timestamptz', new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6))],
    ['$1::bytea', Buffer.from([0, 120])], ['$1::uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'], ['$1::text', null],
    ['$1::int4[]', [1, 2, null]], ['$1::text[]', ['a', 'b c', '"q"', null]], ['$1::int8[]', ['1', '2']],
    ['$1::float8[]', [1.5, -2]], ['$1::numeric[]', ['1.10', '2']], ['$1::bool[]', [true, false]],
    ['$1::date[]', ['2024-01-02']], ['$1::uuid[]', ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']],
    ['$1::timestamp[]', ['2024-01-02 03:04:05']], ['$1::varchar[]', ['x']], ['$1::int2[]', [1]],
    ['ARRAY[$1::int4, 2]', 1], ['$1', 'untyped'],
  ];
  for (const [expr, val] of selects) {
    try {
      const res = await c.query(`SELECT ${expr} AS v`, [val]);
      console.log('select', expr, show(val), '->', res.fields[0].dataTypeID, show(res.rows[0].v));
    } catch (e) {
      console.log('select', expr, show(val), '-> error', e.code);
    }
  }

  // Prepared statements by name, executed twice with different values.
  for (const v of [1, 2]) {
    const res = await c.query({ name: 'by_id', text: `SELECT id, s, n FROM ${T} WHERE id = $1`, values: [v] });
    dump('named ' + v, res);
  }
  // rowMode array.
  const arr = await c.query({ text: `SELECT id, s FROM ${T} WHERE id <= $1 ORDER BY id`, values: [2], rowMode: 'array' });
  console.log('array mode', JSON.stringify(arr.rows));

  // A transaction with DDL: rolled back, then committed.
  await c.query('BEGIN');
  await c.query(`CREATE TABLE ${T}_rb (id integer)`);
  await c.query(`INSERT INTO ${T}_rb VALUES ($1), ($2)`, [1, 2]);
  await c.query('ROLLBACK');
  await attempt(c, 'after rollback', `SELECT * FROM ${T}_rb`);
  await c.query('BEGIN');
  await c.query(`CREATE TABLE ${T}_cm (id integer, s text)`);
  await c.query(`INSERT INTO ${T}_cm VALUES ($1, $2), ($3, $4)`, [1, 'a', 2, null]);
  await attempt(c, 'update in block', `UPDATE ${T}_cm SET s = $1 WHERE id = $2`, ['b', 2]);
  await c.query('COMMIT');
  dump('committed', await c.query(`SELECT * FROM ${T}_cm ORDER BY id`));
  await attempt(c, 'delete returning', `DELETE FROM ${T}_cm WHERE id = $1 RETURNING *`, [1]);
  await attempt(c, 'bad int', `SELECT $1::int4`, ['x']);
  await attempt(c, 'overflow', `INSERT INTO ${T} (id, i2) VALUES ($1, $2)`, [9, 40000]);
  await attempt(c, 'null id', `INSERT INTO ${T} (id) VALUES ($1)`, [null]);
  await c.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
