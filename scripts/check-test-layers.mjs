// Fails when a test file belongs to no Vitest project (it would never run) or to more than one
// (it would run twice): the layers in vite.config.ts must partition the tests.
// Vitest's own resolution (`vitest list --filesOnly`) is compared with every test file on disk.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'storybook-static', 'packs']);
const TEST_FILE = /\.test\.[cm]?[jt]sx?$/;

function testFiles(dir) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(full));
    else if (TEST_FILE.test(entry.name)) found.push(path.relative(ROOT, full));
  }
  return found;
}

const listed = JSON.parse(
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'list', '--filesOnly', '--json'],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  ),
);
const projectsOf = new Map(testFiles(ROOT).map((file) => [file, []]));
for (const { file, projectName } of listed) {
  const rel = path.relative(ROOT, file);
  projectsOf.set(rel, [...(projectsOf.get(rel) ?? []), projectName]);
}

const problems = [...projectsOf]
  .filter(([, projects]) => projects.length !== 1)
  .map(([file, projects]) =>
    projects.length === 0
      ? `${file}: in no project (add it to a layer in vite.config.ts)`
      : `${file}: in ${projects.length} projects (${projects.join(', ')})`,
  );
if (problems.length > 0) {
  console.error(`Test layers do not partition the test files:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const counts = new Map();
for (const [, [project]] of projectsOf) counts.set(project, (counts.get(project) ?? 0) + 1);
console.log(
  `${projectsOf.size} test files, each in one project: ${[...counts]
    .map(([project, n]) => `${project} ${n}`)
    .join(', ')}`,
);
