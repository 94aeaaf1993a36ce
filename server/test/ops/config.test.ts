import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { loadSecrets } from '../../src/domain/keys';
import { createLogger } from '../../src/log';

const silent = createLogger('silent');

describe('loadConfig', () => {
  it('defaults PORT to 4000', () => {
    expect(loadConfig({}).port).toBe(4000);
  });

  it('defaults the data dir to server/.data, not to the current directory', () => {
    const serverDir = path.resolve(import.meta.dirname, '../..');
    // The tests run from the repository root, where ./.data is another directory.
    expect(process.cwd()).not.toBe(serverDir);
    expect(loadConfig({}).dataDir).toBe(path.join(serverDir, '.data'));
  });

  it('resolves a relative BRIDGE_DATA_DIR against the current directory', () => {
    expect(loadConfig({ BRIDGE_DATA_DIR: 'some/dir' }).dataDir).toBe(path.resolve('some/dir'));
  });

  it('resolves a relative BRIDGE_DATA_DIR against INIT_CWD, where npm was invoked', () => {
    const config = loadConfig({ BRIDGE_DATA_DIR: 'some/dir', INIT_CWD: '/home/me/project' });
    expect(config.dataDir).toBe('/home/me/project/some/dir');
  });

  it('keeps an absolute BRIDGE_DATA_DIR as it is, whatever INIT_CWD says', () => {
    const config = loadConfig({ BRIDGE_DATA_DIR: '/srv/bridge', INIT_CWD: '/home/me/project' });
    expect(config.dataDir).toBe('/srv/bridge');
  });

  it('defaults to development', () => {
    expect(loadConfig({}).env).toBe('development');
  });

  it('allows private networks by default in development', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).allowPrivateNetworks).toBe(true);
  });

  it('refuses private networks by default in production', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).allowPrivateNetworks).toBe(false);
  });

  it('lets BRIDGE_ALLOW_PRIVATE_NETWORKS override the default', () => {
    const config = loadConfig({ NODE_ENV: 'production', BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(config.allowPrivateNetworks).toBe(true);
  });

  it('defaults the body limit to 100 kB', () => {
    expect(loadConfig({}).bodyLimitBytes).toBe(100_000);
  });

  it('uses the store of DATABASE_URL when set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).databaseUrl).toBe('postgres://u@h/db');
  });

  it('defaults the PostgreSQL pool to 10 connections and unnamed statements, no direct URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@h/db' });
    expect(config.pgPoolSize).toBe(10);
    expect(config.pgPrepared).toBe('unnamed');
    expect(config.databaseDirectUrl).toBeUndefined();
  });

  it('reads BRIDGE_PG_POOL_SIZE, BRIDGE_PG_PREPARED and DATABASE_DIRECT_URL', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@pooler:6432/db',
      DATABASE_DIRECT_URL: 'postgresql://u@db:5432/db',
      BRIDGE_PG_POOL_SIZE: '5',
      BRIDGE_PG_PREPARED: 'named',
    });
    expect(config.pgPoolSize).toBe(5);
    expect(config.pgPrepared).toBe('named');
    expect(config.databaseDirectUrl).toBe('postgresql://u@db:5432/db');
  });

  it('refuses DATABASE_DIRECT_URL without DATABASE_URL, naming the variable', () => {
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgres://u@db/db' })).toThrow(
      /DATABASE_DIRECT_URL: needs DATABASE_URL/,
    );
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(4000);
  });

  it('defaults the rate-limit store to auto', () => {
    expect(loadConfig({}).rateLimitStore).toBe('auto');
  });

  it('refuses BRIDGE_RATE_LIMIT_STORE=redis without REDIS_URL, naming the variable', () => {
    expect(() => loadConfig({ BRIDGE_RATE_LIMIT_STORE: 'redis' })).toThrow(
      /BRIDGE_RATE_LIMIT_STORE: redis needs REDIS_URL/,
    );
  });

  it('refuses BRIDGE_RATE_LIMIT_STORE=store on SQLite, naming the variable', () => {
    expect(() => loadConfig({ BRIDGE_RATE_LIMIT_STORE: 'store' })).toThrow(
      /BRIDGE_RATE_LIMIT_STORE: store needs DATABASE_URL/,
    );
  });

  it('refuses an unknown BRIDGE_RATE_LIMIT_STORE', () => {
    expect(() => loadConfig({ BRIDGE_RATE_LIMIT_STORE: 'disk' })).toThrow(ConfigError);
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });

  it('lets a sync read 64 MB by default, and reads BRIDGE_SYNC_MAX_MB in MB', () => {
    expect(loadConfig({}).syncMaxReadBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ BRIDGE_SYNC_MAX_MB: '3' }).syncMaxReadBytes).toBe(3 * 1024 * 1024);
  });

  it('allows 8 connection attempts in flight by default, and reads the variable', () => {
    expect(loadConfig({}).maxConnectionsInFlight).toBe(8);
    expect(loadConfig({ BRIDGE_MAX_CONNECTIONS_IN_FLIGHT: '3' }).maxConnectionsInFlight).toBe(3);
  });

  it('defaults the lifecycle: checks every 300 s, syncs every 3600 s (120 s deadline), 10,000 tables', () => {
    expect(loadConfig({})).toMatchObject({
      backgroundJobs: true,
      healthIntervalSeconds: 300,
      syncIntervalSeconds: 3600,
      syncTimeoutSeconds: 120,
      syncMaxTables: 10_000,
      syncMaxReadBytes: 64 * 1024 * 1024,
    });
  });

  it('runs background jobs unless told not to, and not in tests unless told to', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).backgroundJobs).toBe(true);
    expect(loadConfig({ BRIDGE_BACKGROUND_JOBS: 'false' }).backgroundJobs).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test' }).backgroundJobs).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', BRIDGE_BACKGROUND_JOBS: 'true' }).backgroundJobs).toBe(
      true,
    );
  });

  it('refuses a sync deadline over half the sync interval (an abandoned sync must be retaken within one)', () => {
    expect(() =>
      loadConfig({ BRIDGE_SYNC_INTERVAL_S: '200', BRIDGE_SYNC_TIMEOUT_S: '101' }),
    ).toThrow(/BRIDGE_SYNC_TIMEOUT_S: must be at most half of BRIDGE_SYNC_INTERVAL_S/);
    expect(
      loadConfig({ BRIDGE_SYNC_INTERVAL_S: '200', BRIDGE_SYNC_TIMEOUT_S: '100' })
        .syncTimeoutSeconds,
    ).toBe(100);
  });

  it('lets the sync deadline follow the interval unless set: 120 s, or half a shorter interval', () => {
    expect(loadConfig({ BRIDGE_SYNC_INTERVAL_S: '30' }).syncTimeoutSeconds).toBe(15);
    expect(loadConfig({ BRIDGE_SYNC_INTERVAL_S: '241' }).syncTimeoutSeconds).toBe(120);
    expect(loadConfig({ BRIDGE_SYNC_INTERVAL_S: '2' }).syncTimeoutSeconds).toBe(1);
  });

  it('defaults the shutdown grace to the longest deadline (verify, sync) plus 10 s, and reads it', () => {
    expect(loadConfig({}).shutdownGraceSeconds).toBe(130);
    expect(loadConfig({ BRIDGE_SYNC_INTERVAL_S: '20' }).shutdownGraceSeconds).toBe(20);
    expect(
      loadConfig({ BRIDGE_SYNC_INTERVAL_S: '20', BRIDGE_VERIFY_TIMEOUT_MS: '45500' })
        .shutdownGraceSeconds,
    ).toBe(56);
    expect(loadConfig({ BRIDGE_SHUTDOWN_GRACE_S: '25' }).shutdownGraceSeconds).toBe(25);
  });

  it('keeps idle client connections 65 s unless BRIDGE_KEEP_ALIVE_TIMEOUT_S says otherwise', () => {
    expect(loadConfig({}).keepAliveTimeoutSeconds).toBe(65);
    expect(loadConfig({ BRIDGE_KEEP_ALIVE_TIMEOUT_S: '350' }).keepAliveTimeoutSeconds).toBe(350);
  });

  it('keeps metrics and tracing off unless configured', () => {
    const config = loadConfig({});
    expect(config.metrics).toBeUndefined();
    expect(config.tracing).toBeUndefined();
    expect(config.logProbes).toBe(false);
    expect(config.logSummarySeconds).toBe(30);
    expect(config.startupRetrySeconds).toBe(30);
  });

  it('reads the metrics listener: loopback unless BRIDGE_METRICS_HOST says otherwise', () => {
    expect(loadConfig({ BRIDGE_METRICS_PORT: '9464' }).metrics).toEqual({
      port: 9464,
      host: '127.0.0.1',
    });
    expect(
      loadConfig({ BRIDGE_METRICS_PORT: '9464', BRIDGE_METRICS_HOST: '0.0.0.0' }).metrics,
    ).toEqual({ port: 9464, host: '0.0.0.0' });
  });

  it('sends traces to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, or the traces endpoint as given', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      url: 'http://collector:4318/v1/traces',
      serviceName: 'bridgekit',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example.com/traces',
        OTEL_SERVICE_NAME: 'bridge-eu',
      }).tracing,
    ).toEqual({ url: 'https://otel.example.com/traces', serviceName: 'bridge-eu' });
  });

  it.each([
    ['DATABASE_URL', 'postgres://app:s3cret@db:54x32/bridge', 'is not a parseable URL'],
    ['DATABASE_DIRECT_URL', 'postgres://db:port/bridge', 'is not a parseable URL'],
    ['BRIDGE_METRICS_PORT', '65536', 'Too big'],
    ['BRIDGE_SHUTDOWN_GRACE_S', '0', 'Too small'],
    ['BRIDGE_KEEP_ALIVE_TIMEOUT_S', '3601', 'Too big'],
    ['BRIDGE_STARTUP_RETRY_S', 'forever', 'must be a whole number'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318', 'must be an http(s) URL'],
  ])(
    'refuses %s=%s, naming it in the message and in variables, never echoing it',
    (name, value, why) => {
      const env = { DATABASE_URL: 'postgres://u@h/db', [name]: value };
      let error: unknown;
      try {
        loadConfig(env);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual([name]);
      expect((error as Error).message).toContain(`${name}: ${why}`);
      expect((error as Error).message).not.toContain(value);
    },
  );

  it('names the variable of a cross-check in variables', () => {
    expect(() => loadConfig({ BRIDGE_RATE_LIMIT_STORE: 'redis' })).toThrow(
      expect.objectContaining({ variables: ['BRIDGE_RATE_LIMIT_STORE'] }),
    );
    expect(() =>
      loadConfig({ BRIDGE_SYNC_INTERVAL_S: '200', BRIDGE_SYNC_TIMEOUT_S: '101' }),
    ).toThrow(expect.objectContaining({ variables: ['BRIDGE_SYNC_TIMEOUT_S'] }));
  });

  it('reads PORT', () => {
    expect(loadConfig({ PORT: '8080' }).port).toBe(8080);
  });

  it('defaults the grace of a rotated jwtSecret to 24 hours', () => {
    expect(loadConfig({}).jwtSecretGraceSeconds).toBe(86_400);
  });

  it('reads BRIDGE_JWT_SECRET_GRACE_HOURS as decimal hours, 0 allowed', () => {
    expect(loadConfig({ BRIDGE_JWT_SECRET_GRACE_HOURS: '0.5' }).jwtSecretGraceSeconds).toBe(1800);
    expect(loadConfig({ BRIDGE_JWT_SECRET_GRACE_HOURS: '0' }).jwtSecretGraceSeconds).toBe(0);
  });

  it('bounds every wait on a dependency by default, and reads each variable', () => {
    expect(loadConfig({}).timeouts).toEqual({
      pgConnectMs: 1500,
      pgStatementMs: 5000,
      redisConnectMs: 1000,
      redisCommandMs: 1000,
      healthzMs: 1000,
    });
    const set = loadConfig({
      BRIDGE_PG_CONNECT_TIMEOUT_MS: '2000',
      BRIDGE_PG_STATEMENT_TIMEOUT_MS: '30000',
      BRIDGE_REDIS_CONNECT_TIMEOUT_MS: '300',
      BRIDGE_REDIS_COMMAND_TIMEOUT_MS: '400',
      BRIDGE_HEALTHZ_TIMEOUT_MS: '250',
    });
    expect(set.timeouts).toEqual({
      pgConnectMs: 2000,
      pgStatementMs: 30_000,
      redisConnectMs: 300,
      redisCommandMs: 400,
      healthzMs: 250,
    });
    expect(Object.isFrozen(set.timeouts)).toBe(true);
  });

  it.each([
    ['BRIDGE_PG_CONNECT_TIMEOUT_MS', '0', 'Too small'],
    ['BRIDGE_PG_CONNECT_TIMEOUT_MS', '1.5', 'must be a whole number'],
    ['BRIDGE_PG_STATEMENT_TIMEOUT_MS', '99', 'Too small'],
    ['BRIDGE_PG_STATEMENT_TIMEOUT_MS', '600001', 'Too big'],
    ['BRIDGE_REDIS_CONNECT_TIMEOUT_MS', 'soon', 'must be a whole number'],
    ['BRIDGE_REDIS_COMMAND_TIMEOUT_MS', '60001', 'Too big'],
    ['BRIDGE_HEALTHZ_TIMEOUT_MS', '-5', 'must be a whole number'],
  ])('refuses %s=%s, naming it: %s', (name, value, why) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}: ${why}`));
  });

  it.each([
    ['BRIDGE_JWT_SECRET_GRACE_HOURS', '-1'],
    ['BRIDGE_JWT_SECRET_GRACE_HOURS', '721'],
    ['BRIDGE_JWT_SECRET_GRACE_HOURS', 'a day'],
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['BRIDGE_SECRET_KEY', 'short'],
    ['NODE_ENV', 'staging'],
    ['BRIDGE_ALLOW_PRIVATE_NETWORKS', 'maybe'],
    ['BRIDGE_MAX_CONNECTIONS_IN_FLIGHT', '0'],
    ['BRIDGE_MAX_CONNECTIONS_IN_FLIGHT', 'many'],
    ['BRIDGE_BACKGROUND_JOBS', 'sometimes'],
    ['BRIDGE_HEALTH_INTERVAL_S', '0'],
    ['BRIDGE_HEALTH_INTERVAL_S', '5m'],
    ['BRIDGE_SYNC_INTERVAL_S', '1'],
    ['BRIDGE_SYNC_INTERVAL_S', '86401'],
    ['BRIDGE_SYNC_TIMEOUT_S', '0'],
    ['BRIDGE_SYNC_TIMEOUT_S', '1801'],
    ['BRIDGE_SYNC_MAX_TABLES', '0'],
    ['BRIDGE_SYNC_MAX_MB', '0'],
    ['BRIDGE_SYNC_MAX_MB', '1025'],
    ['BRIDGE_SYNC_MAX_MB', '64MB'],
    ['BRIDGE_PG_POOL_SIZE', '0'],
    ['BRIDGE_PG_POOL_SIZE', '1001'],
    ['BRIDGE_PG_POOL_SIZE', 'ten'],
    ['BRIDGE_PG_PREPARED', 'always'],
    ['DATABASE_DIRECT_URL', 'mysql://x'],
  ])('names %s=%s in the error', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}\\b`));
  });

  it('names every bad variable at once', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/\bPORT\b/);
    expect(message).toMatch(/\bLOG_LEVEL\b/);
  });

  it('never puts the value of a bad secret in the message', () => {
    const value = 'not-a-real-key-but-still-secret';
    expect(() => loadConfig({ BRIDGE_SECRET_KEY: value })).toThrow(ConfigError);
    try {
      loadConfig({ BRIDGE_SECRET_KEY: value });
    } catch (err) {
      expect((err as Error).message).not.toContain(value);
    }
  });
});

describe('loadSecrets', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-config-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops a production start without BRIDGE_SECRET_KEY, naming it', () => {
    const config = loadConfig({ NODE_ENV: 'production', BRIDGE_DATA_DIR: tempDir() });
    expect(() => loadSecrets(config, silent)).toThrow(ConfigError);
    expect(() => loadSecrets(config, silent)).toThrow(/BRIDGE_SECRET_KEY/);
  });

  it('stops a production start without BRIDGE_SESSION_SECRET, naming it', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      BRIDGE_DATA_DIR: tempDir(),
      BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
    });
    expect(() => loadSecrets(config, silent)).toThrow(/BRIDGE_SESSION_SECRET/);
  });

  it('writes no key file in production', () => {
    const dir = tempDir();
    const config = loadConfig({ NODE_ENV: 'production', BRIDGE_DATA_DIR: dir });
    expect(() => loadSecrets(config, silent)).toThrow();
    expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);
  });

  it('generates secret.key with mode 0600 in development', () => {
    const dir = tempDir();
    loadSecrets(loadConfig({ NODE_ENV: 'development', BRIDGE_DATA_DIR: dir }), silent);
    const file = path.join(dir, 'secret.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
  });

  it('generates session.key with mode 0600 in development', () => {
    const dir = tempDir();
    loadSecrets(loadConfig({ NODE_ENV: 'development', BRIDGE_DATA_DIR: dir }), silent);
    expect(fs.statSync(path.join(dir, 'session.key')).mode & 0o777).toBe(0o600);
  });

  it('reuses the generated key on the next start', () => {
    const dir = tempDir();
    const config = loadConfig({ NODE_ENV: 'development', BRIDGE_DATA_DIR: dir });
    const first = loadSecrets(config, silent);
    const sealed = first.secretBox.seal('value', 'rec_1', 'field');
    const second = loadSecrets(config, silent);
    expect(second.secretBox.open(sealed, 'rec_1', 'field')).toBe('value');
  });

  it('uses BRIDGE_SECRET_KEY instead of a file when set', () => {
    const dir = tempDir();
    loadSecrets(
      loadConfig({
        NODE_ENV: 'development',
        BRIDGE_DATA_DIR: dir,
        BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
      }),
      silent,
    );
    expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);
  });
});
