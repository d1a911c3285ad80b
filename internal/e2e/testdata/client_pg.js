// The e2e scenario through node-postgres; prints the transcript the Go test
// checks. pg sends Parse without parameter types: the server infers them.
const { Client } = require('pg');

const E = process.env;
const name = (i) => (i % 5 === 0 ? null : 'n' + i);

async function main() {
  const table = E.E2E_TABLE;
  const rows = parseInt(E.E2E_ROWS, 10);
  const deletes = E.E2E_DELETES.split(',').map((d) => parseInt(d, 10));
  deletes.push(deletes[0]);
  const c = new Client({
    host: E.E2E_HOST, port: parseInt(E.E2E_PORT, 10), user: E.E2E_USER,
    password: E.E2E_PASSWORD || undefined, database: 'e2e', ssl: false,
  });
  await c.connect();
  await c.query(`CREATE TABLE ${table} (id bigint NOT NULL, name text, score double precision)`);
  let inserted = 0;
  for (let i = 1; i <= rows; i++) {
    const r = await c.query(`INSERT INTO ${table} VALUES ($1, $2, $3)`, [i, name(i), i + 0.5]);
    inserted += r.rowCount;
  }
  console.log(`insert ${inserted}`);
  for (const id of deletes) {
    // A named statement: parsed once, then bound and executed each time.
    const r = await c.query({ name: 'del', text: `DELETE FROM ${table} WHERE id = $1`, values: [id] });
    console.log(`delete ${id} ${r.rowCount}`);
  }
  const res = await c.query(`SELECT id, name, score FROM ${table} WHERE id > $1 ORDER BY id`, [0]);
  for (const r of res.rows) {
    const id = Number(r.id);
    const extra = r.score === id + 0.5 ? '' : ` (score ${r.score})`;
    console.log(`row ${id} ${r.name === null ? 'NULL' : r.name}${extra}`);
  }
  try {
    await c.query('SELECT * FROM no_such_table');
    console.log('error none');
  } catch (e) {
    console.log(`error ${e.code}`);
  }
  const one = await c.query('SELECT 1 AS one');
  console.log(`after-error ${one.rows[0].one}`);
  await c.end();
}

main().catch((e) => { console.error(e); process.exit(1); });
