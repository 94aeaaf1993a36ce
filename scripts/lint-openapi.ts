// Lints the OpenAPI document the bridge serves (with its examples) with Redocly's recommended
// rules, warnings counted as errors (redocly.yaml). Run by `npm test`; `npm run lint:openapi`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOpenApiDocument } from '@bridgekit/contract';

const root = fileURLToPath(new URL('..', import.meta.url));
// A fixed path: .redocly.lint-ignore.yaml names its exceptions by file.
const file = path.join(root, 'test-results/openapi.json');
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(await loadOpenApiDocument(), null, 2)}\n`);

const result = spawnSync('npx', ['redocly', 'lint', path.relative(root, file)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
});
process.exit(result.status ?? 1);
