import { type RouteDef, routes } from '@bridgekit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../test/support/bridge';
import { queries } from '../../../test/support/fuzz/mutations';
import { jsonSchemaOf } from '../../../test/support/fuzz/schema-arbitraries';
import {
  callers,
  checkAnswer,
  type FuzzWorld,
  fuzzParameters,
  pathOf,
  send,
  startFuzzWorld,
} from '../../../test/support/fuzz/world';

const RUNS = 150;
const QUERY_ROUTES = (Object.entries(routes) as [string, RouteDef][]).filter(([, r]) => r.query);
/** What a valid query gets where it is not the route's success (a random jwt is refused). */
const REACHED: Record<string, number> = { ssoBrowser: 401 };

describe.each(ENGINES)('fuzzed query strings, built from the contract schemas on %s', (engine) => {
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await startFuzzWorld(engine);
  });
  afterAll(() => world?.bridge.stop());

  it('covers every route with a query', () => {
    expect(QUERY_ROUTES.map(([id]) => id)).toEqual(
      expect.arrayContaining([
        'listOrganizations',
        'createOrganization',
        'getOrganization',
        'updateOrganization',
        'listMembers',
        'listDataSources',
        'getDataSourceSchema',
        'ssoBrowser',
      ]),
    );
  });

  it.each(QUERY_ROUTES)(
    '%s: never a 5xx, always the envelope, never a secret',
    async (id, route) => {
      const schema = jsonSchemaOf(route.query!);
      const seen = new Set<number>();
      // A route with a body too gets a valid one here; bodies.test.ts fuzzes it.
      const body = route.body
        ? { text: JSON.stringify({ name: 'Query fuzz' }), contentType: 'application/json' }
        : undefined;
      const params = fuzzParameters(RUNS);
      await fc.assert(
        fc.asyncProperty(queries(schema), callers(world), async (query, caller) => {
          const sent = {
            method: route.method.toUpperCase(),
            path: `${pathOf(route, world)}?${query}`,
            caller,
            body,
            fieldSpecific: true,
          };
          const res = await send(world, sent);
          seen.add(res.status);
          checkAnswer(route, world, sent, res);
        }),
        params,
      );
      const replay = `FUZZ_SEED=${params.seed} replays this run`;
      expect(seen, replay).toContain(REACHED[id] ?? route.status);
      expect(seen, replay).toContain(400);
    },
    60_000,
  );
});
