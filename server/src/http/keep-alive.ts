import type http from 'node:http';

/**
 * Keeps an idle client connection open `seconds` (BRIDGE_KEEP_ALIVE_TIMEOUT_S), and allows a
 * request's headers at least a second more, so a request that starts just before the idle
 * limit is not cut by the headers limit.
 */
export function keptAlive(server: http.Server, seconds: number): http.Server {
  server.keepAliveTimeout = seconds * 1000;
  server.headersTimeout = Math.max(server.headersTimeout, server.keepAliveTimeout + 1000);
  return server;
}
