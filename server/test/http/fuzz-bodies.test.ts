import { type RouteDef, routes } from '@bridgekit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../test/support/bridge';
import { bodies } from '../../../test/support/fuzz/mutations';
import { jsonSchemaOf, MARK } from '../../../test/support/fuzz/schema-arbitraries';
import {
  callers,
  checkAnswer,
  type FuzzWorld,
  fuzzParameters,
  localHosts,
  loopbackOnly,
  pathOf,
  send,
  startFuzzWorld,
} from '../../../test/support/fuzz/world';

const RUNS = 150;
/** What a valid body gets where it is not the route's success (verify targets a closed port). */
const REACHED: Record<string, number> = {
  verifyDataSource: 422,
  ssoExchange: 401,
  // A random code is no code the bridge handed out.
  embedSession: 401,
};
const BODY_ROUTES = (Object.entries(routes) as [string, RouteDef][]).filter(([, r]) => r.body);

describe.each(ENGINES)('fuzzed request bodies, built from the contract schemas on %s', (engine) => {
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await startFuzzWorld(engine);
  });
  afterAll(() => world?.bridge.stop());

  it('covers every route with a body', () => {
    expect(BODY_ROUTES.map(([id]) => id)).toEqual(
      expect.arrayContaining([
        'createOrganization',
        'updateOrganization',
        'addMember',
        'updateMember',
        'createDataSource',
        'verifyDataSource',
        'updateDataSource',
        'ssoExchange',
        'embedSession',
      ]),
    );
  });

  it.each(BODY_ROUTES)(
    '%s: never a 5xx, always the envelope, never a secret',
    async (id, route) => {
      const verify = id === 'verifyDataSource';
      const schema = jsonSchemaOf(route.body!);
      let wire = bodies(schema, verify ? localHosts(world) : {});
      if (verify) wire = wire.map(loopbackOnly(world));
      // A route with a query too gets a valid one here; queries.test.ts fuzzes it.
      const path = pathOf(route, world) + (route.query ? '?include=jwtSecret' : '');
      const seen = new Set<number>();
      const params = fuzzParameters(RUNS);
      await fc.assert(
        fc.asyncProperty(wire, callers(world), async (body, caller) => {
          const v = body.value;
          const fieldSpecific = typeof v === 'object' && v !== null && !Array.isArray(v);
          const sent = { method: route.method.toUpperCase(), path, caller, body, fieldSpecific };
          const res = await send(world, sent);
          seen.add(res.status);
          checkAnswer(route, world, sent, res);
        }),
        params,
      );
      // Not vacuous: valid bodies got through to the handler, mutated ones were refused.
      const replay = `FUZZ_SEED=${params.seed} replays this run`;
      expect(seen, replay).toContain(REACHED[id] ?? route.status);
      expect(seen, replay).toContain(400);
    },
    60_000,
  );

  it('wrote no generated secret to the log', () => {
    expect(world.bridge.logs.filter((line) => line.includes(MARK))).toEqual([]);
  });
});
