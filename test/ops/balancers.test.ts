import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import { until } from '../support/wait';

const DOC = path.resolve(import.meta.dirname, '../../docs/operations.md');
const TOKEN =
  'eyJhbGciOiJIUzI1NiJ9.eyJlbWFpbCI6InNlY3JldEBleGFtcGxlLmNvbSJ9.c2VjcmV0LXNpZ25hdHVyZQ';

/** The docs' snippet fenced as `lang`: what operators copy is what runs here. */
function snippet(lang: string): string {
  const text = fs.readFileSync(DOC, 'utf8');
  const start = text.indexOf(`\`\`\`${lang}\n`);
  if (start === -1) throw new Error(`docs/operations.md has no ${lang} snippet`);
  const body = text.slice(start + lang.length + 4);
  return body.slice(0, body.indexOf('```'));
}

/** Starts `command`; its output so far, and a stop. */
function run(command: string, args: string[]) {
  let out = '';
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c) => {
    out += c;
  });
  child.stderr?.on('data', (c) => {
    out += c;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The full-embed sign-in URL with a token, as a host's page would open it. */
const signInPath = `/api/sso/jwt?theme=dark&jwt=${TOKEN}&hide_org_name=true`;

describe('redacting jwt at the balancer: the docs’ snippets, run', () => {
  let bridge: BridgeProcess;
  let dir: string;

  beforeAll(async () => {
    bridge = await startBridgeProcess();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-balancer-'));
  }, 120_000);
  afterAll(async () => {
    await bridge.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('HAProxy logs the sign-in with jwt=[redacted], never the token', async () => {
    const port = await freePort();
    const config = snippet('haproxy')
      .replace(/^ {4}bind :80$/m, `    bind 127.0.0.1:${port}`)
      .replace(/^ {4}server bridge1 .*$/m, `    server bridge1 127.0.0.1:${bridge.port} check`)
      .replace(/^ {4}server bridge2 .*\n/m, '');
    const file = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(file, config);
    const haproxy = run('haproxy', ['-db', '-f', file]);
    try {
      const res = await until(
        'HAProxy to pass the sign-in on',
        () => fetch(`http://127.0.0.1:${port}${signInPath}`, { redirect: 'manual' }),
        (r) => r.status !== 503,
      );
      expect(res.status).toBe(401);
      const line = await until(
        'the access log line',
        async () =>
          haproxy
            .output()
            .split('\n')
            .find((l) => l.includes('/api/sso/jwt')),
        Boolean,
      );
      expect(line).toContain('"/api/sso/jwt?theme=dark&jwt=[redacted]&hide_org_name=true"');
      expect(haproxy.output()).not.toContain(TOKEN.slice(0, 20));
    } finally {
      await haproxy.stop();
    }
  });

  it('nginx logs the sign-in with jwt=[redacted], never the token', async () => {
    const port = await freePort();
    const access = path.join(dir, 'access.log');
    const server = snippet('nginx')
      .replace('listen 80;', `listen 127.0.0.1:${port};`)
      .replace(
        /server 10\.0\.0\.11:4000;\n\s*server 10\.0\.0\.12:4000;/,
        `server 127.0.0.1:${bridge.port};`,
      )
      .replace('/var/log/nginx/bridge.access.log', access)
      .replace('/var/log/nginx/bridge.error.log', path.join(dir, 'error.log'));
    const file = path.join(dir, 'nginx.conf');
    fs.writeFileSync(
      file,
      `pid ${dir}/nginx.pid;
error_log ${dir}/main-error.log;
events {}
http {
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${server}
}
`,
    );
    const nginx = run('nginx', ['-p', dir, '-c', file, '-g', 'daemon off;']);
    try {
      const res = await until(
        'nginx to pass the sign-in on',
        () => fetch(`http://127.0.0.1:${port}${signInPath}`, { redirect: 'manual' }),
        (r) => r.status !== 502,
      );
      expect(res.status).toBe(401);
      const log = await until(
        'the access log line',
        async () => (fs.existsSync(access) ? fs.readFileSync(access, 'utf8') : ''),
        (text) => text.includes('/api/sso/jwt'),
      );
      expect(log).toContain(
        '"GET /api/sso/jwt?theme=dark&jwt=[redacted]&hide_org_name=true HTTP/1.1"',
      );
      expect(log).not.toContain(TOKEN.slice(0, 20));
    } finally {
      await nginx.stop();
    }
  });
});
