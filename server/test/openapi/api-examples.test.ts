import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiExamples } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScenarioBridges, startScenarioBridges } from './api-examples/bridges';
import type { ExampleBridges } from './api-examples/generic-errors';
import { leakedSecrets, normalizeExamples } from './api-examples/normalize';
import { missingExamples, recordExamples } from './api-examples/record';
import { scenarios } from './api-examples/scenarios';
import { createWorld, type World } from './api-examples/world';

// The examples in the OpenAPI document are answers of a real bridge (SQLite store), recorded
// from the scenarios in ./api-examples on a frozen clock. This test records them again: it
// fails when a route or an error title has no scenario, when a scenario gets another answer
// than it asks for, and when packages/contract/src/examples.json differs from what the
// bridge sends now. `npm run docs:examples` writes the file.

const EXAMPLES_FILE = fileURLToPath(
  new URL('../../../packages/contract/src/examples.json', import.meta.url),
);
const WRITE = process.env.BRIDGEKIT_WRITE_EXAMPLES === '1';
const EXAMPLE_TIME = new Date('2026-01-15T09:30:00.000Z');

let started: ScenarioBridges;
let bridges: ExampleBridges;
let world: World;
let secrets: string[];
let examples: ApiExamples;
let problems: string[];

beforeAll(async () => {
  // Dates only: timers, I/O and the PostgreSQL cluster run in real time.
  vi.useFakeTimers({ toFake: ['Date'], now: EXAMPLE_TIME });
  started = await startScenarioBridges();
  bridges = started.bridges;
  secrets = [...started.secrets];
  const made = await createWorld(bridges.main);
  world = made.world;
  secrets.push(...Object.values(made.credentials), world.org.jwtSecret);
  const recorded = await recordExamples(scenarios, {
    bridges,
    world,
    credentials: made.credentials,
  });
  problems = recorded.problems;
  examples = normalizeExamples(recorded.examples);
  if (WRITE && problems.length === 0 && missingExamples(scenarios).length === 0) {
    fs.writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
  }
}, 180_000);

afterAll(async () => {
  vi.useRealTimers();
  await started?.close();
  await world?.dispose();
});

describe('API examples', () => {
  it('has a scenario for every route and for each error title of each route', () => {
    expect(missingExamples(scenarios)).toEqual([]);
  });

  it('got from the bridge the answer each scenario asks for', () => {
    expect(problems).toEqual([]);
  });

  it('shows no real key, token or secret', () => {
    expect(leakedSecrets(JSON.stringify(examples), secrets)).toEqual([]);
  });

  it('are the committed examples (run `npm run docs:examples` after changing the API)', () => {
    const committed = JSON.parse(fs.readFileSync(EXAMPLES_FILE, 'utf8'));
    expect(
      committed,
      'packages/contract/src/examples.json differs from what the bridge answers now: run `npm run docs:examples`',
    ).toEqual(examples);
  });

  it('would notice a real key or token', () => {
    const leaks = leakedSecrets(
      JSON.stringify({ key: `bk_key_${'a'.repeat(32)}`, token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln' }),
      [world.org.jwtSecret],
    );
    expect(leaks).toHaveLength(2);
    expect(leakedSecrets(`secret: ${world.org.jwtSecret}`, [world.org.jwtSecret])).toEqual([
      world.org.jwtSecret,
    ]);
  });
});
