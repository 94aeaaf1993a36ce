import path from 'node:path';

/** The SQLite store's file in a data dir. */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'bridge.db');
}

/** Where a PostgreSQL URL points, for people: host, port and database, never user or password. */
export function postgresTarget(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return '(an unparsable URL)';
  }
  // libpq's defaults: a `host` parameter (a socket directory) when the URL names none; 5432; the
  // database named after the user.
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const database = decodeURIComponent(url.pathname.slice(1)) || '(the user’s default database)';
  return `${host}:${url.port || '5432'}/${database}`;
}

/**
 * The store these settings open, in one line with no credentials:
 * `SQLite /srv/bridge/.data/bridge.db`, or `PostgreSQL db.internal:5432/bridge`.
 */
export function describeStore(options: {
  databaseUrl: string | undefined;
  directUrl: string | undefined;
  dataDir: string;
}): string {
  if (!options.databaseUrl) return `SQLite ${sqliteFile(options.dataDir)}`;
  const direct = options.directUrl
    ? ` (migrations through ${postgresTarget(options.directUrl)})`
    : '';
  return `PostgreSQL ${postgresTarget(options.databaseUrl)}${direct}`;
}
