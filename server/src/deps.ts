import type { Logger } from 'pino';
import type { Config } from './config';
import type { SecretBox } from './domain/secret-box';
import type { FailureLog } from './failure-log';
import type { Lifecycle } from './lifecycle/lifecycle';
import type { Metrics } from './observability/metrics';
import type { Tracing } from './observability/tracing';
import type { Limiter } from './rate-limit';
import type { SessionClaims, SessionTokens } from './sso/session-token';
import type { Store } from './store/db';
import type { OrganizationWithRole } from './store/organizations';
import type { SsoExchangeStore } from './store/sso-exchange';
import type { Slots } from './verify/slots';

/** Everything a request handler may use; built once in main.ts (or by a test). */
export interface Deps {
  config: Config;
  store: Store;
  log: Logger;
  /** Repeated dependency failures, summarised (one line and a count per interval). */
  failures: FailureLog;
  /** What this process's start applied to the store (migrations, the job engine's schema). */
  migrated: readonly string[];
  /** Prometheus metrics (BRIDGE_METRICS_PORT), else a no-op. */
  metrics: Metrics;
  /** OpenTelemetry tracing (OTEL_EXPORTER_OTLP_*), else a no-op. */
  tracing: Tracing;
  /** Set once a SIGTERM starts the drain: `/readyz` then answers 503. */
  draining: boolean;
  secretBox: SecretBox;
  /** The check values of this instance's keys (what the store records; never the keys). */
  keyChecks: { secret_key: string; session_secret: string };
  sessions: SessionTokens;
  /**
   * What the SSO exchange reads and writes: the organization with a membership, the SSO limit's
   * hit with the single use of a `jti` (across instances), a first sign-in's provisioning.
   */
  sso: SsoExchangeStore;
  /** One cheap round trip to each dependency, for `/healthz`; `redis` only with `REDIS_URL`. */
  probes: { store(): Promise<void>; redis?(): Promise<void> };
  /** Rate limits: per key or session; verify per organization and per user; SSO per org. */
  limits: { api: Limiter; verify: Limiter; sso: Limiter };
  /**
   * Connection attempts in flight in this process, shared by everything that connects to a
   * data source: a verify takes a slot with `tryAcquire` (429 when none is free), background
   * work (health checks, syncs) waits in `acquire`.
   */
  connectionSlots: Slots;
  /**
   * Health checks, syncs and webhook deliveries: started by startBackgroundJobs, else one that
   * does nothing.
   */
  lifecycle: Lifecycle;
  now: () => Date;
}

export type Principal =
  | { kind: 'apiKey'; userId: string; keyId: string }
  | {
      kind: 'session';
      userId: string;
      orgId: string;
      memberId: string;
      /** The membership's role now (from the store), not the one at sign-in. */
      role: 'ADMIN' | 'MEMBER';
      session: SessionClaims;
      /** The session's organization with that role, read while authenticating. */
      org: OrganizationWithRole;
    };
