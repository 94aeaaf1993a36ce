import fs from 'node:fs';
import { createPgDatabase } from '../server/test/support/bridge';
import { newBridgeData } from '../test/support/bridge-data';
import { loadGrowthData } from './support/growth-data';

const engine = process.argv[2]!;
const n = Number(process.argv[3]);
const db = engine === 'postgres' ? await createPgDatabase() : undefined;
const data = newBridgeData(db?.url);
const r = await loadGrowthData(data, n);
fs.writeFileSync(
  `/tmp/growth/${engine}-${n}.json`,
  JSON.stringify({ data, fixture: r.fixture, rows: r.rows, load: r.loadSeconds }),
);
console.log(engine, r.rows, r.loadSeconds.toFixed(1), data.dataDir, data.databaseUrl);
