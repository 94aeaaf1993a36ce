/** The dialects the form offers (the contract's `Dialect`). */
export type FormDialect = 'POSTGRES' | 'MYSQL';

// Written out rather than imported: the contract module would bring zod into the bundle.
export const DEFAULT_PORTS: Record<FormDialect, number> = { POSTGRES: 5432, MYSQL: 3306 };

/** What a connection string says; `null` or `undefined` where it says nothing. */
export interface ParsedConnection {
  dialect: FormDialect;
  host: string;
  /** Null: no port in the string (the dialect's default applies). */
  port: string | null;
  databaseName: string;
  username: string;
  /** Null: no password in the string. */
  password: string | null;
  /** Undefined: the string says nothing about TLS. */
  sslEnabled: boolean | undefined;
}

export type ParseResult =
  | { ok: true; value: ParsedConnection }
  | { ok: false; reason: 'scheme' | 'invalid' };

const SCHEMES: Record<string, FormDialect> = {
  postgres: 'POSTGRES',
  postgresql: 'POSTGRES',
  mysql: 'MYSQL',
};

// scheme://[user[:password]@]host[:port][/database][?query]. Written out rather than read with
// `new URL`, whose handling of non-http schemes differs between browsers. The user info runs
// to the last `@` before the host, so an unencoded `@` in a password still parses.
const SHAPE =
  /^([a-z][a-z0-9+.-]*):\/\/(?:([^/?#]*)@)?(\[[0-9a-f:.]+\]|[^:/?#[\]@]+)(?::(\d{1,5}))?(?:\/([^/?#]*))?(?:\?([^#]*))?(?:#.*)?$/i;

const ON = /^(true|1|require|required|verify-ca|verify-full|verify_ca|verify_identity)$/i;
const OFF = /^(false|0|disable|disabled)$/i;

/** TLS as `sslmode` (PostgreSQL), `ssl` or `ssl-mode` (MySQL) say; the last one given wins. */
function sslOf(query: string): boolean | undefined {
  let ssl: boolean | undefined;
  for (const [key, value] of new URLSearchParams(query)) {
    if (key !== 'sslmode' && key !== 'ssl' && key !== 'ssl-mode') continue;
    if (ON.test(value)) ssl = true;
    else if (OFF.test(value)) ssl = false;
  }
  return ssl;
}

/**
 * Reads `postgres://`, `postgresql://` or `mysql://` connection strings into the form's fields.
 * Never throws, and the result never holds the string itself: a failure is only its reason.
 */
export function parseConnectionString(text: string): ParseResult {
  const match = SHAPE.exec(text.trim());
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text.trim())?.[1]?.toLowerCase() ?? '';
  const dialect = SCHEMES[scheme];
  if (!dialect) return { ok: false, reason: 'scheme' };
  if (!match || Number(match[4] ?? 0) > 65535) return { ok: false, reason: 'invalid' };
  const [, , userInfo = '', rawHost = '', port, database = '', query = ''] = match;
  const colon = userInfo.indexOf(':');
  try {
    return {
      ok: true,
      value: {
        dialect,
        host: decodeURIComponent(rawHost.replace(/^\[(.*)\]$/, '$1')),
        port: port ?? null,
        databaseName: decodeURIComponent(database),
        username: decodeURIComponent(colon === -1 ? userInfo : userInfo.slice(0, colon)),
        password: colon === -1 ? null : decodeURIComponent(userInfo.slice(colon + 1)),
        sslEnabled: sslOf(query),
      },
    };
  } catch {
    // A malformed %-escape.
    return { ok: false, reason: 'invalid' };
  }
}
