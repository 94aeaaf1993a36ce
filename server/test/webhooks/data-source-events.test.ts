import { verifyWebhook } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { type PgServer, startPgServer } from '../../../test/support/pg-server';
import { until } from '../../../test/support/wait';
import { type Receiver, startReceiver } from './receiver';

// The bridge's own scheduler (health and sync every two seconds) and its own dispatcher, as in
// production; the data source is a private PostgreSQL the test stops and starts.
const LIFECYCLE_ENV = {
  BRIDGE_BACKGROUND_JOBS: 'true',
  BRIDGE_HEALTH_INTERVAL_S: '2',
  BRIDGE_SYNC_INTERVAL_S: '2',
  BRIDGE_SYNC_TIMEOUT_S: '1',
  BRIDGE_VERIFY_TIMEOUT_MS: '2000',
  BRIDGE_RATE_LIMIT_PER_MINUTE: '100000',
};

let server: PgServer;
beforeAll(async () => {
  server = await startPgServer();
});
afterAll(() => server?.destroy());

describe.each(['sqlite', 'postgres'] as const)('data source events on %s', (engine) => {
  let bridge: TestBridge;
  let receiver: Receiver;

  beforeAll(async () => {
    bridge = await startBridge(engine, LIFECYCLE_ENV);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await bridge?.stop();
    await receiver?.close();
  });

  it('tells the host when a data source syncs, goes down (health and sync failing) and comes back', async () => {
    const { key } = await bridge.newUser();
    const orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'DS' } })
    ).body.data.id as string;
    const endpoint = (
      await bridge.request('POST', `/api/public/organizations/${orgId}/webhook-endpoints`, {
        key,
        body: {
          url: receiver.url,
          eventTypes: [
            'data_source.health_changed',
            'data_source.sync_succeeded',
            'data_source.sync_failed',
          ],
        },
      })
    ).body.data;
    const created = await bridge.request(
      'POST',
      `/api/public/organizations/${orgId}/data-sources`,
      {
        key,
        body: {
          dialect: 'POSTGRES',
          displayName: 'Warehouse',
          host: '127.0.0.1',
          port: server.port,
          username: 'postgres',
          password: 'unused-with-trust',
          databaseName: 'postgres',
          sslEnabled: false,
        },
      },
    );
    expect(created.status).toBe(201);
    const dataSourceId = created.body.data.id as string;
    const ref = { organizationId: orgId, dataSourceId };
    const seen = async () =>
      Promise.all(
        // In the order the events were recorded (ids sort by creation), whatever the arrivals.
        [...receiver.received]
          .sort((x, y) =>
            String(x.headers['webhook-id']).localeCompare(String(y.headers['webhook-id'])),
          )
          .map((r) =>
            verifyWebhook({ headers: r.headers as never, body: r.body }, endpoint.secret),
          ),
      );
    const waitFor = (
      what: string,
      match: (e: { type: string; data: Record<string, unknown> }) => boolean,
    ) => until(what, seen, (events) => events.some(match));

    const synced = await waitFor('sync_succeeded', (e) => e.type === 'data_source.sync_succeeded');
    expect(synced.find((e) => e.type === 'data_source.sync_succeeded')!.data).toEqual({
      ...ref,
      tableCount: expect.any(Number),
      columnCount: expect.any(Number),
      truncated: false,
    });
    const healthy = await waitFor(
      'HEALTHY',
      (e) => e.type === 'data_source.health_changed' && e.data.status === 'HEALTHY',
    );
    expect(healthy.find((e) => e.type === 'data_source.health_changed')!.data).toEqual({
      ...ref,
      previousStatus: null,
      status: 'HEALTHY',
      failureCode: null,
    });

    await server.pause();
    // A check or sync connected when the server stops sees its connection closed; every one
    // after that is refused. Either is what happened, so either may come first.
    const goingDown = ['connection_closed', 'connection_refused'];
    const down = await waitFor(
      'UNHEALTHY and sync_failed',
      (e) => e.type === 'data_source.health_changed' && e.data.status === 'UNHEALTHY',
    );
    expect(down.filter((e) => e.type === 'data_source.health_changed').at(-1)!.data).toEqual({
      ...ref,
      previousStatus: 'HEALTHY',
      status: 'UNHEALTHY',
      failureCode: expect.toBeOneOf(goingDown),
    });
    const refused = (e: { type: string; data: Record<string, unknown> }) =>
      e.type === 'data_source.sync_failed' && e.data.failureCode === 'connection_refused';
    const failed = await waitFor('sync_failed, refused', refused);
    expect(failed.find(refused)!.data).toEqual({ ...ref, failureCode: 'connection_refused' });
    for (const e of failed.filter((e) => e.type === 'data_source.sync_failed')) {
      expect(e.data).toEqual({ ...ref, failureCode: expect.toBeOneOf(goingDown) });
    }
    // Still down: no second health_changed for the same state.
    const unhealthyCount = (await seen()).filter(
      (e) => e.type === 'data_source.health_changed' && e.data.status === 'UNHEALTHY',
    ).length;
    expect(unhealthyCount).toBe(1);

    await server.resume();
    const up = await waitFor(
      'HEALTHY again',
      (e) =>
        e.type === 'data_source.health_changed' &&
        e.data.status === 'HEALTHY' &&
        e.data.previousStatus === 'UNHEALTHY',
    );
    expect(
      up.filter((e) => e.type === 'data_source.health_changed').map((e) => e.data.status),
    ).toEqual(['HEALTHY', 'UNHEALTHY', 'HEALTHY']);
  });
});
