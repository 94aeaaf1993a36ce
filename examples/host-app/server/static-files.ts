import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
};

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the built page from `root` (Vite's `dist/`); paths that are not files get
 * `index.html`, so the page can have its own routes.
 */
export function staticFiles(root: string) {
  const base = path.resolve(root);
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { pathname } = new URL(req.url ?? '/', 'http://host.invalid');
    let wanted: string;
    try {
      wanted = path.resolve(base, `.${decodeURIComponent(pathname)}`);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const inside = wanted.startsWith(base + path.sep);
    const file = inside && (await isFile(wanted)) ? wanted : path.join(base, 'index.html');
    if (!(await isFile(file))) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The page is not built: run `npm run build` first.\n');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': file.includes(`${path.sep}assets${path.sep}`)
        ? 'max-age=31536000'
        : 'no-cache',
    });
    createReadStream(file).pipe(res);
  };
}
