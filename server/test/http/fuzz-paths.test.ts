import { type RouteDef, routes } from '@bridgekit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../test/support/bridge';
import {
  callers,
  checkAnswer,
  type FuzzWorld,
  fuzzParameters,
  pathOf,
  send,
  startFuzzWorld,
} from '../../../test/support/fuzz/world';

const RUNS = 40;
// The public API's routes with ids in the path (embed pages answer HTML, not the envelope).
const PARAM_ROUTES = (Object.entries(routes) as [string, RouteDef][]).filter(
  ([, r]) => r.params && r.auth === 'bearer',
);

/**
 * Odd path ids: unknown, wrong prefix, NUL, unicode, long; %-encoded as a client would. Not `.`
 * or `..`: URL resolution turns those into another route before the request is sent.
 */
const oddId = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }),
    fc.string({ minLength: 1, maxLength: 30, unit: 'binary' }),
    fc.constantFrom('org_\u0000', '\u0000', 'ds_00000000000000000000', 'mem_x', '%', ' ', '...'),
    fc.integer({ min: 100, max: 2000 }).map((n) => 'z'.repeat(n)),
  )
  .filter((id) => id !== '.' && id !== '..');

describe.each(ENGINES)('fuzzed path ids on %s', (engine) => {
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await startFuzzWorld(engine);
  });
  afterAll(() => world?.bridge.stop());

  it('covers the lifecycle routes', () => {
    expect(PARAM_ROUTES.map(([id]) => id)).toEqual(
      expect.arrayContaining([
        'updateOrganization',
        'deleteOrganization',
        'rotateJwtSecret',
        'updateMember',
        'removeMember',
        'checkDataSourceHealth',
        'syncDataSource',
        'getDataSourceSchema',
      ]),
    );
  });

  it.each(PARAM_ROUTES)(
    '%s: never a 5xx, always the envelope',
    async (_id, route) => {
      const seen = new Set<number>();
      const body = route.body
        ? { text: JSON.stringify({ name: 'x' }), contentType: 'application/json' }
        : undefined;
      await fc.assert(
        fc.asyncProperty(oddId, fc.boolean(), callers(world), async (odd, first, caller) => {
          const real = pathOf(route, world).split('/');
          // Replace the organization id or the last id (not a trailing action) with the odd one.
          const at = first ? 4 : route.path.split('/').findLastIndex((s) => s.startsWith('{'));
          real[at] = encodeURIComponent(odd);
          const sent = { method: route.method.toUpperCase(), path: real.join('/'), caller, body };
          const res = await send(world, sent);
          seen.add(res.status);
          checkAnswer(route, world, sent, res);
        }),
        {
          ...fuzzParameters(RUNS),
          // A body route validates its body before it looks the organization up, so only a NUL
          // id (which names nothing) is a 404 there: run that case every time, not by chance.
          examples: [
            ['\u0000', true, `Bearer ${world.adminKey}`],
            ['\u0000', false, `Bearer ${world.adminKey}`],
          ],
        },
      );
      expect(seen).toContain(404);
    },
    60_000,
  );
});
