import { gzipSync } from 'node:zlib';
import { ErrorBody, Organization } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(ENGINES)('HTTP conventions on %s', (engine) => {
  let bridge: TestBridge;
  let user: { key: string; userId: string; email: string };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    user = await bridge.newUser();
  });
  afterAll(() => bridge.stop());

  describe('request bodies', () => {
    it('answers 400 ValidationError to malformed JSON', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: '{"name": "Broken",',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.code).toBe('malformed_json');
    });

    it('answers 413 PayloadTooLarge to a body over 100 kB', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Big', customAiContext: 'x'.repeat(101_000) },
      });
      expect(res.status).toBe(413);
      expect(ErrorBody.parse(res.body).error.title).toBe('PayloadTooLarge');
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('accepts a body just under 100 kB as far as size goes', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Almost Big', customAiContext: 'x'.repeat(99_000) },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['customAiContext']);
      expect(res.body.error.fieldCodes).toEqual({ customAiContext: 'too_long' });
    });

    it('answers 415 UnsupportedMediaType to text/plain', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: JSON.stringify({ name: 'Plain' }),
        headers: { 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(415);
      expect(ErrorBody.parse(res.body).error.title).toBe('UnsupportedMediaType');
      expect(res.body.error.code).toBe('unsupported_media_type');
    });

    it('answers 415 UnsupportedMediaType to a body without Content-Type', async () => {
      // A byte body makes fetch send no Content-Type at all.
      const res = await fetch(`${bridge.url}/api/public/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}` },
        body: Buffer.from(JSON.stringify({ name: 'Untyped' })),
      });
      expect(res.status).toBe(415);
      const body = ErrorBody.parse(await res.json());
      expect(body.error.title).toBe('UnsupportedMediaType');
      expect(body.error.code).toBe('unsupported_media_type');
    });

    it('answers 415 to a POST without body and without Content-Type', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', { key: user.key });
      expect(res.status).toBe(415);
      expect(ErrorBody.parse(res.body).error.title).toBe('UnsupportedMediaType');
      expect(res.body.error.code).toBe('unsupported_media_type');
    });

    it('accepts application/json with charset=utf-8', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: JSON.stringify({ name: 'With Charset' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(res.status).toBe(201);
      expect(Organization.parse(res.body.data).name).toBe('With Charset');
    });

    it('accepts a gzip-encoded JSON body', async () => {
      const res = await fetch(`${bridge.url}/api/public/organizations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${user.key}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body: gzipSync(JSON.stringify({ name: 'Zipped' })),
      });
      expect(res.status).toBe(201);
    });

    it('answers 400, not 500, to a corrupt gzip body', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: '{"name":"not really gzip"}',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.code).toBe('malformed_request');
    });

    it('rejects an unknown field with fieldErrors naming it', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Typo', nmae: 'Typo' },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.fieldErrors).toEqual({ nmae: 'Unknown field' });
      expect(res.body.error).toMatchObject({
        code: 'validation_failed',
        fieldCodes: { nmae: 'unknown_field' },
      });
    });

    it('rejects a number as name with fieldErrors.name about the type', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 5 },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['name']);
      expect(res.body.error.fieldErrors.name).toMatch(/string/);
      expect(res.body.error.fieldCodes).toEqual({ name: 'invalid_type' });
    });

    it('rejects a string as fullEmbedEnabled with fieldErrors.fullEmbedEnabled', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Typed', fullEmbedEnabled: 'yes' },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['fullEmbedEnabled']);
      expect(res.body.error.fieldErrors.fullEmbedEnabled).toMatch(/boolean/);
      expect(res.body.error.fieldCodes).toEqual({ fullEmbedEnabled: 'invalid_type' });
    });

    it('names a nested field by its dotted path', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Nested', embedAllowedOrigins: ['https://ok.example.com', 7] },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['embedAllowedOrigins.1']);
      expect(res.body.error.fieldCodes).toEqual({ 'embedAllowedOrigins.1': 'invalid_type' });
    });

    it('rejects a JSON array body with 400', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: [{ name: 'In An Array' }],
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.code).toBe('invalid_body');
    });

    it('rejects a JSON null body with 400', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: 'null',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.code).toBe('malformed_json');
    });

    it('rejects an empty name with fieldErrors.name', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: '' },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['name']);
      expect(res.body.error.fieldCodes).toEqual({ name: 'required' });
    });

    it('rejects a blank name with fieldErrors.name', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: '   ' },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['name']);
      expect(res.body.error.fieldCodes).toEqual({ name: 'required' });
    });

    it('requires a name with fieldErrors.name "Required"', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { customAiContext: 'no name' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.fieldErrors).toEqual({ name: 'Required' });
      expect(res.body.error.fieldCodes).toEqual({ name: 'required' });
    });

    it('rejects U+0000 in a field with fieldCodes nul_character', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Nul\u0000Org' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        title: 'ValidationError',
        code: 'validation_failed',
        detail: 'Request body is invalid: name',
        fieldErrors: { name: 'Must not contain the NUL character (U+0000)' },
        fieldCodes: { name: 'nul_character' },
      });
    });

    it('creates nothing on a rejected body', async () => {
      await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Should Not Exist', fullEmbedEnabled: 'yes' },
      });
      const list = await bridge.request('GET', '/api/public/organizations?limit=100', {
        key: user.key,
      });
      expect(list.body.data.map((o: Organization) => o.name)).not.toContain('Should Not Exist');
    });
  });

  describe('unknown routes', () => {
    it('answers GET /nope with a JSON 404 NotFound', async () => {
      const res = await bridge.request('GET', '/nope');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('route_not_found');
    });

    it('answers GET /api/public/nope with a JSON 404 NotFound', async () => {
      const res = await bridge.request('GET', '/api/public/nope', { key: user.key });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('route_not_found');
    });

    it('answers PUT on a known path with a JSON 404 NotFound', async () => {
      const res = await bridge.request('PUT', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Put' },
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('route_not_found');
    });

    it('answers PUT on an organization (no such route) with a JSON 404 NotFound', async () => {
      const res = await bridge.request(
        'PUT',
        '/api/public/organizations/org_00000000000000000000000000',
        { key: user.key },
      );
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('route_not_found');
    });

    it('answers 400, not 500, to a path with broken percent-encoding', async () => {
      const res = await bridge.request('GET', '/api/public/organizations/%E0%A4%A', {
        key: user.key,
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.code).toBe('malformed_request');
    });
  });

  describe('X-Request-Id', () => {
    it('is set on a success', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', { key: user.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('is set on a 400', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?limit=0', {
        key: user.key,
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('is set on a 401', async () => {
      const res = await bridge.request('GET', '/api/public/organizations');
      expect(res.status).toBe(401);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('is set on a 404 for an unknown route', async () => {
      const res = await bridge.request('GET', '/nope');
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('is set on a 413', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'x'.repeat(200_000) },
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('is set on a 415', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(415);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('is set on open routes', async () => {
      const res = await bridge.request('GET', '/healthz');
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('differs between requests', async () => {
      const a = await bridge.request('GET', '/healthz');
      const b = await bridge.request('GET', '/healthz');
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    });

    it('echoes a well-formed incoming id', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', {
        key: user.key,
        headers: { 'x-request-id': 'trace-1234_abc:5.6' },
      });
      expect(res.headers.get('x-request-id')).toBe('trace-1234_abc:5.6');
    });

    it('echoes a well-formed incoming id on an error too', async () => {
      const res = await bridge.request('GET', '/nope', {
        headers: { 'x-request-id': 'trace-on-error' },
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBe('trace-on-error');
    });

    it('replaces an incoming id with spaces and markup', async () => {
      const res = await bridge.request('GET', '/healthz', {
        headers: { 'x-request-id': 'bad id <script>' },
      });
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });

    it('replaces an incoming id longer than 128 characters', async () => {
      const res = await bridge.request('GET', '/healthz', {
        headers: { 'x-request-id': 'a'.repeat(129) },
      });
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });
  });

  describe('open service routes', () => {
    it('GET /healthz answers 200 {status: ok, store: ok}', async () => {
      const res = await bridge.request('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', store: 'ok' });
    });

    it('GET /docs answers 200 text/html', async () => {
      const res = await bridge.request('GET', '/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toMatch(/^<!doctype html>/i);
    });

    it('GET /docs loads its scripts from the bridge, and nothing from elsewhere', async () => {
      const res = await bridge.request('GET', '/docs');
      const urls = [...res.text.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
      expect(urls).toEqual([
        'data:,',
        '/api/public/openapi.json',
        '/docs/assets/scalar.js',
        '/docs/assets/docs.js',
      ]);
      const csp = res.headers.get('content-security-policy');
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("connect-src 'self';");
      expect(csp).not.toContain('unsafe-eval');
    });

    it.each([
      ['scalar.js', 'Scalar'],
      ['docs.js', "Scalar.createApiReference('#bridgekit-docs'"],
    ])('GET /docs/assets/%s answers the script', async (file, start) => {
      const res = await bridge.request('GET', `/docs/assets/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.text).toContain(start);
    });

    it('GET /docs/assets/ of another file is 404 NotFound', async () => {
      const res = await bridge.request('GET', '/docs/assets/app.js');
      expect(res.status).toBe(404);
      expect(res.body.error.title).toBe('NotFound');
    });

    it('GET /api/public/openapi.json answers 200 without auth', async () => {
      const res = await bridge.request('GET', '/api/public/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.openapi).toBe('3.1.0');
    });
  });
});
