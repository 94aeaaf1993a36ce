import { randomBytes } from 'node:crypto';
import { type RouteDef, routes, SsoClaims } from '@bridgekit/contract';
import fc from 'fast-check';
import { type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../test/support/bridge';
import { objects } from '../../../test/support/fuzz/mutations';
import { jsonSchemaOf } from '../../../test/support/fuzz/schema-arbitraries';
import {
  checkAnswer,
  type FuzzWorld,
  fuzzParameters,
  send,
  startFuzzWorld,
} from '../../../test/support/fuzz/world';

const RUNS = 150;

interface Recipe {
  payload: unknown;
  how: string;
}

describe.each(ENGINES)('fuzzed SSO claims, signed with the organization secret on %s', (engine) => {
  let world: FuzzWorld;
  let recipes: fc.Arbitrary<Recipe>;

  beforeAll(async () => {
    world = await startFuzzWorld(engine);
    const now = Math.floor(Date.now() / 1000);
    const { valid, mutated } = objects(jsonSchemaOf(SsoClaims), {
      orgId: fc.oneof(
        { weight: 8, arbitrary: fc.constant(world.orgId) },
        { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
      ),
      iat: fc.integer({ min: now - 60, max: now }),
      exp: fc.integer({ min: now + 60, max: now + 3000 }),
      jti: fc.uuid(),
      // Hosts sign exact addresses; the claim check does not trim.
      email: fc.oneof(
        fc.stringMatching(/^[a-z0-9._+-]{1,20}$/).map((local) => `${local}@Example.com`),
        fc.emailAddress(),
      ),
    });
    const claims = fc.oneof({ weight: 1, arbitrary: valid }, { weight: 3, arbitrary: mutated });
    // Signing is async, so the arbitrary is a recipe and the property signs it.
    recipes = fc.record({
      payload: claims,
      how: fc.constantFrom('HS256', 'HS256', 'HS256', 'HS256', 'HS512', 'none', 'wrong-secret'),
    });
  });
  afterAll(() => world?.bridge.stop());

  const signed = async ({ payload, how }: Recipe): Promise<string> => {
    // A claims set that is not an object still becomes a JWS payload (jose wants an object).
    const body =
      payload && typeof payload === 'object' && !Array.isArray(payload) ? payload : { v: payload };
    if (how === 'none') return new UnsecuredJWT(body as JWTPayload).encode();
    const secret = how === 'wrong-secret' ? randomBytes(32).toString('base64url') : world.jwtSecret;
    return new SignJWT(body as JWTPayload)
      .setProtectedHeader({ alg: how === 'wrong-secret' ? 'HS256' : how, typ: 'JWT' })
      .sign(new TextEncoder().encode(secret));
  };

  it.each([
    ['ssoExchange', routes.ssoExchange],
    ['ssoBrowser', routes.ssoBrowser],
  ] as [string, RouteDef][])(
    '%s: never a 5xx, always the envelope, never a secret',
    async (id, route) => {
      const seen = new Set<number>();
      await fc.assert(
        fc.asyncProperty(recipes, async (recipe) => {
          const jwt = await signed(recipe);
          // Node answers a request line over its 16 kB header limit itself (431), before the app.
          if (id === 'ssoBrowser') fc.pre(jwt.length < 12_000);
          const sent =
            id === 'ssoExchange'
              ? {
                  method: 'POST',
                  path: route.path,
                  body: { text: JSON.stringify({ jwt }), contentType: 'application/json' },
                }
              : { method: 'GET', path: `${route.path}?jwt=${encodeURIComponent(jwt)}` };
          const res = await send(world, sent);
          seen.add(res.status);
          checkAnswer(route, world, sent, res);
        }),
        fuzzParameters(RUNS),
      );
      // Not vacuous: valid claims were accepted (full embed is off, so the browser flow says 403).
      expect(seen).toContain(id === 'ssoExchange' ? 200 : 403);
      expect(seen).toContain(401);
    },
    60_000,
  );
});
