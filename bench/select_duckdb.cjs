// DuckDB side of `magmalake-bench select`: reads a request (JSON file named
// by argv[2]), creates views over read_parquet of magmalake's data files,
// runs each query warmup + repeat times and prints one JSON object with the
// times and the last run's rows as text. @duckdb/node-api is found through
// NODE_PATH (bench/select.sh installs it in a scratch node_modules).
'use strict';
const fs = require('fs');
const duckdb = require('@duckdb/node-api');

// text prints a value as PostgreSQL's text output would: booleans as t/f,
// everything else by DuckDB's own string form; NULL stays null.
function text(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return String(v);
}

// timed runs sql; a query still running after timeoutMs (when set) is
// interrupted and fails with timedOut set.
async function timed(conn, sql, timeoutMs) {
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  let timer;
  const state = { fired: false };
  if (timeoutMs > 0) {
    timer = setTimeout(() => {
      state.fired = true;
      conn.interrupt();
    }, timeoutMs);
  }
  let reader;
  try {
    reader = await conn.runAndReadAll(sql);
  } catch (e) {
    if (state.fired) e.timedOut = true;
    throw e;
  } finally {
    clearTimeout(timer);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpu0); // every DuckDB thread: they are this process's
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, reader };
}

// enoughRuns is select_run.go's rule: at least repeat runs and, for fast
// queries, a second of them (at most 200); a slow one stops after three
// once they took 30 s. An exact request (bench tpch) runs repeat times.
function enoughRuns(runs, repeat, exact) {
  if (exact) return runs.length >= repeat;
  const spent = runs.reduce((a, b) => a + b, 0);
  if (runs.length >= repeat) return spent >= 1000 || runs.length >= Math.max(repeat, 200);
  return runs.length >= Math.min(3, repeat) && spent >= 30000;
}

async function runQuery(conn, q, req) {
  const { warmup, repeat, exact } = req;
  const out = { name: q.name, ms: [], cpu_ms: [] };
  try {
    let last;
    for (let i = 0; i < warmup || !enoughRuns(out.ms, repeat, exact); i++) {
      const r = await timed(conn, q.sql, req.timeout_ms || 0);
      if (i >= warmup) {
        out.ms.push(r.ms);
        out.cpu_ms.push(r.cpuMs);
      }
      last = r.reader;
    }
    out.rows = last.getRows().map((row) => row.map(text));
  } catch (e) {
    out.error = String(e && e.message ? e.message : e);
    if (e && e.timedOut) out.timeout = true;
  }
  return out;
}

async function main() {
  const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const inst = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  for (const s of req.setup) await conn.run(s);
  const version = (await conn.runAndReadAll('SELECT version()')).getRows()[0][0];
  const results = [];
  for (const q of req.queries) results.push(await runQuery(conn, q, req));
  process.stdout.write(JSON.stringify({ version, results }) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
