// graphile-worker drain only, for bench/pg_sidebyside.sh: bench_graphile.mjs --mode=plain
// without its one-by-one addJob phase (which takes minutes at 20000 jobs when fsyncs are slow).
// --n jobs (~1 KB payload each) are queued with addJobs in chunks of 1000, then run({concurrency
// 16}) drains them with a no-op task; rate = n / (first task start -> job table empty, polled
// every 25 ms), exactly as bench_graphile.mjs's drain(). Run from a peerbench working folder
// (copied there by the driver, so lib/common.mjs and node_modules resolve):
//   node graphile_drain.mjs [--n=20000] [--conc=16]
import { args, require, PG_URL, payload, now, rate, report, version, waitFor } from './lib/common.mjs';
const { run, makeWorkerUtils, Logger } = require('graphile-worker');
const pg = require('pg');

const A = args();
const N = Number(A.n || 20000);
const CONC = Number(A.conc || 16);
const BULK = 1000;
const LIB = { lib: 'graphile-worker', version: version('graphile-worker'), pg: version('pg'), postgres: '15, synchronous_commit=on' };
const logger = new Logger(() => (level, message) => { if (level === 'error' || level === 'warning') console.error(`[gw ${level}] ${message}`); });

const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query('DROP SCHEMA IF EXISTS graphile_worker CASCADE');
const utils = await makeWorkerUtils({ connectionString: PG_URL, logger });
await utils.migrate();
const jobCount = async () => (await admin.query('select count(*)::int c from graphile_worker._private_jobs')).rows[0].c;

const t0 = now();
for (let i = 0; i < N; i += BULK) {
  const batch = [];
  for (let j = i; j < Math.min(N, i + BULK); j++) batch.push({ identifier: 'job', payload: payload(j) });
  await utils.addJobs(batch);
}
const bulk = now() - t0;
report({ ...LIB, bench: 'plain-enqueue-bulk(addJobs)', n: N, chunk: BULK, jobs_per_s: rate(N, bulk), ms: Math.round(bulk) });

let first = 0;
const runner = await run({ connectionString: PG_URL, concurrency: CONC, maxPoolSize: CONC + 4, noHandleSignals: true, logger,
  taskList: { job: async () => { if (!first) first = now(); } } });
const end = await waitFor(async () => (await jobCount()) === 0, { everyMs: 25, timeoutMs: 900000 });
await runner.stop();
report({ ...LIB, bench: 'plain-drain(after bulk)', n: N, concurrency: CONC, drain_jobs_per_s: rate(N, end - first), drain_ms: Math.round(end - first) });

// a one-by-one enqueue figure on a small count, for scale
const ONE = Number(A.one || 500);
const t1 = now();
for (let i = 0; i < ONE; i++) await utils.addJob('job', payload(i));
const one = now() - t1;
report({ ...LIB, bench: 'plain-enqueue-one(addJob)', n: ONE, jobs_per_s: rate(ONE, one), ms: Math.round(one) });
await admin.query('DROP SCHEMA IF EXISTS graphile_worker CASCADE');
await utils.release();
await admin.end();
