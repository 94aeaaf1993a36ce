import http from 'node:http';
import type { Registry } from 'prom-client';

/**
 * The Prometheus listener, apart from the API's port so it is never exposed with it:
 * `GET /metrics` only.
 */
export function metricsServer(registry: Registry): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics failed\n'),
    );
  });
}
