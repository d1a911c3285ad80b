// DuckDB side of `magmalake-bench merge`: reads a request (JSON file named
// by argv[2]), runs its setup statements, then its statements in order as
// one timed unit, warmup + repeat times, and prints one JSON object with the
// times (wall and the process's CPU, DuckDB's threads included) and, of the
// last run, each statement's first value as text (a COPY's row count).
// @duckdb/node-api is found through NODE_PATH, as for bench select.
'use strict';
const fs = require('fs');
const duckdb = require('@duckdb/node-api');

function first(reader) {
  const rows = reader.getRows();
  if (rows.length === 0 || rows[0].length === 0 || rows[0][0] === null) return null;
  return String(rows[0][0]);
}

async function once(conn, statements) {
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const values = [];
  for (const s of statements) values.push(first(await conn.runAndReadAll(s)));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, values };
}

async function main() {
  const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const inst = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  for (const s of req.setup) await conn.run(s);
  const version = (await conn.runAndReadAll('SELECT version()')).getRows()[0][0];
  const out = { version, ms: [], cpu_ms: [], values: [] };
  try {
    for (let i = 0; i < req.warmup + req.repeat; i++) {
      const r = await once(conn, req.statements);
      if (i >= req.warmup) {
        out.ms.push(r.ms);
        out.cpu_ms.push(r.cpuMs);
      }
      out.values = r.values;
    }
  } catch (e) {
    out.error = String(e && e.message ? e.message : e);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
