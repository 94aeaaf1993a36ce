import { type RouteId, routes } from '@bridgekit/contract';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../src';

describe('endpoints', () => {
  it('matches the contract route table for every JSON API route', () => {
    const apiRoutes = (Object.keys(routes) as RouteId[]).filter(
      (id) => !['Service', 'Embed'].includes(routes[id].tag) && !('contentType' in routes[id]),
    );

    expect(Object.keys(endpoints).sort()).toEqual(apiRoutes.sort());
    for (const id of apiRoutes) {
      const route = routes[id];
      expect(endpoints[id as keyof typeof endpoints]).toEqual([
        route.method,
        route.path,
        route.auth,
      ]);
    }
  });
});
