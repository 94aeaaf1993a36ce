import {
  type DataSource,
  type Member,
  type Organization,
  type RouteId,
  routes,
} from '@bridgekit/contract';
import { createSsoToken, type SsoUser } from '@bridgekit/node';
import pg from 'pg';
import {
  PG_ADMIN_URL,
  type ServedBridge,
  type TestResponse,
} from '../../../../test/support/bridge';
import { createApiKeyForEmail } from '../../../src/domain/api-key-admin';
import { syncDataSource } from '../../../src/lifecycle/sync';
import type { ExampleCall } from './scenario';
import { send } from './send';

/** The browser origin the example organization embeds in. */
export const HOST_ORIGIN = 'https://app.acme.example';

/**
 * What the scenarios work with, made through the API before any example is recorded. A
 * scenario that changes or deletes a record makes its own (`newOrganization`,
 * `newDataSource`), so every other example shows the same records.
 */
export interface World {
  /** "Acme Analytics": its ADMIN is `admin`, `member` is a MEMBER, full embed on. */
  org: Organization & { jwtSecret: string };
  /** A POSTGRES data source of `org`. */
  dataSource: DataSource;
  /** A POSTGRES data source of `org` that connects (the examples' database), synced once. */
  warehouse: DataSource;
  /** Drops the examples' database. */
  dispose(): Promise<void>;
  /** The membership of `member` in `org`. */
  member: Member;
  /** A fresh handoff code of a full-embed sign-in (the `#code=` of its redirect). */
  handoffCode(): Promise<string>;
  /** A fresh single-use SSO token for `org`, signed with its jwtSecret. */
  ssoToken(user?: SsoUser): Promise<string>;
  newOrganization(name: string): Promise<Organization>;
  newDataSource(displayName: string): Promise<DataSource>;
  /** A fresh session token of `member` (for a scenario that ends its session). */
  newSession(): Promise<string>;
  /** Sends a request that is not an example (to use a token up, say). */
  send(id: RouteId, call: ExampleCall): Promise<TestResponse>;
  /** Connection details of a database verify can reach (the machine's PostgreSQL). */
  verifyTarget: {
    host: string;
    port: number;
    username: string;
    databaseName: string;
    sslEnabled: boolean;
  };
}

/** The world's API keys and session token, by caller; never part of an example. */
export interface Credentials {
  admin: string;
  member: string;
  outsider: string;
  session: string;
}

export const MEMBER_USER: SsoUser = {
  email: 'grace@acme.example',
  firstName: 'Grace',
  lastName: 'Hopper',
  role: 'MEMBER',
};

/** The machine's PostgreSQL, as a data source's connection details. */
function machinePostgres(): World['verifyTarget'] {
  const pg = new URL(PG_ADMIN_URL);
  return {
    host: pg.hostname === '127.0.0.1' ? 'localhost' : pg.hostname,
    port: Number(pg.port || 5432),
    username: decodeURIComponent(pg.username || 'postgres'),
    databaseName: 'postgres',
    // It listens without TLS.
    sslEnabled: false,
  };
}

const dataSourceBody = (displayName: string) => ({
  dialect: 'POSTGRES',
  displayName,
  host: 'db.acme.example',
  port: 5432,
  databaseName: 'analytics',
  username: 'reporting',
  password: 'example-password',
  sslEnabled: true,
});

/** A database on the machine's PostgreSQL with a few tables, for the schema examples. */
const EXAMPLES_DATABASE = 'bridgekit_examples';

async function onAdmin(sql: string, database = 'postgres') {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function createExamplesDatabase(name: string) {
  await onAdmin(`drop database if exists ${name} with (force)`);
  await onAdmin(`create database ${name}`);
  await onAdmin(
    `create table public.customers (id bigint primary key, email text not null, region varchar(2));
     create table public.orders (id bigint primary key, customer_id bigint not null, total numeric(12, 2) not null, placed_at timestamptz not null);
     create view public.revenue_by_region as
       select c.region, sum(o.total) as revenue from public.orders o join public.customers c on c.id = o.customer_id group by c.region`,
    name,
  );
}

/** Sends setup requests with `key`; a refusal stops the examples with its answer. */
const setupCaller =
  (bridge: ServedBridge, key: string) =>
  async (method: string, path: string, body?: unknown, headers = {}) => {
    const res = await bridge.request(method, path, { key, body, headers });
    if (res.status >= 400) throw new Error(`world: ${method} ${path}: ${res.status} ${res.text}`);
    return res;
  };

/** Creates the world on `bridge`, through the API. */
/**
 * Makes the world on `bridge`. `database` names the examples' database on the machine's
 * PostgreSQL: the recorded examples show the default; a run beside them needs its own.
 */
export async function createWorld(
  bridge: ServedBridge,
  database = EXAMPLES_DATABASE,
): Promise<{ world: World; credentials: Credentials }> {
  const key = async (email: string, fullName: string) =>
    (await createApiKeyForEmail(bridge.deps.store.db, { email, fullName }, bridge.deps.now())).key;
  const admin = await key('ada@acme.example', 'Ada Lovelace');
  const outsider = await key('mallory@example.com', 'Mallory Example');
  const call = setupCaller(bridge, admin);
  const organizations = '/api/public/organizations?include=jwtSecret';
  const newOrganization = async (name: string) =>
    (await call('POST', organizations, { name })).body.data;
  const org = (
    await call('POST', organizations, {
      name: 'Acme Analytics',
      slug: 'acme',
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST_ORIGIN],
    })
  ).body.data;
  const orgPath = `/api/public/organizations/${org.id}`;
  const newDataSource = async (displayName: string) =>
    (await call('POST', `${orgPath}/data-sources`, dataSourceBody(displayName))).body.data;
  const dataSource = await newDataSource('Warehouse');
  await createExamplesDatabase(database);
  const target = machinePostgres();
  const local = (
    await call('POST', `${orgPath}/data-sources`, {
      dialect: 'POSTGRES',
      displayName: 'Sales warehouse',
      ...target,
      databaseName: database,
    })
  ).body.data;
  // The sync the scheduler would run, so the schema examples show a real catalog.
  await syncDataSource(bridge.deps, local.id);
  const warehouse = (await call('GET', `${orgPath}/data-sources/${local.id}`)).body.data;
  const member = (
    await call('POST', `${orgPath}/members`, { email: MEMBER_USER.email, role: 'MEMBER' })
  ).body.data;
  const ssoToken = (user: SsoUser = MEMBER_USER) =>
    createSsoToken({ secret: org.jwtSecret, orgId: org.id, user });

  const exchanged = await call('POST', '/api/sso/jwt', { jwt: await ssoToken() });
  const handoffCode = async () => {
    const signIn = await call('GET', `/api/sso/jwt?jwt=${await ssoToken()}`, undefined, {
      referer: `${HOST_ORIGIN}/reports`,
    });
    const location = signIn.headers.get('location') ?? '';
    return new URLSearchParams(location.slice(location.indexOf('#') + 1)).get('code') ?? '';
  };
  const credentials: Credentials = {
    admin,
    member: await key(MEMBER_USER.email, 'Grace Hopper'),
    outsider,
    session: exchanged.body.data.sessionToken,
  };
  const world: World = {
    org,
    dataSource,
    warehouse,
    dispose: () => onAdmin(`drop database if exists ${database} with (force)`),
    member,
    handoffCode,
    ssoToken,
    newOrganization,
    newDataSource,
    newSession: async () =>
      (await call('POST', '/api/sso/jwt', { jwt: await ssoToken() })).body.data.sessionToken,
    send: (id, request) => send(bridge, routes[id], request, credentials),
    verifyTarget: machinePostgres(),
  };
  return { world, credentials };
}
