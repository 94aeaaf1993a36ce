// `npm run docs:generate`: writes the generated sections of the docs (scripts/docs/generated.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, renderAll } from './docs/generated';

for (const { file, actual, expected } of renderAll()) {
  if (actual === expected) continue;
  fs.writeFileSync(path.join(ROOT, file), expected);
  process.stdout.write(`docs:generate: wrote ${file}\n`);
}
