import { relative } from 'node:path';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Our packages from src/ (the `bridgekit-source` export condition): tests need no build.
const SOURCE = 'bridgekit-source';

/** Pure tests: no server, store, socket or child process. The inner loop. */
const UNIT = [
  'packages/client/test/**/*.test.ts',
  'packages/node/test/create-sso-token.test.ts',
  'server/test/architecture/import-cycles.test.ts',
  'server/test/embed-origins/{origin-rule-shared,origins}.test.ts',
  'server/test/http/json-cache.test.ts',
  'server/test/ops/{config,failure-log}.test.ts',
  'server/test/primitives/{ids,random-pool,secret-box}.test.ts',
  'server/test/sso/{session-token,token}.test.ts',
  'server/test/verify/{failure-codes,network-policy,slots,ssh-key-kdf}.test.ts',
  'test/page-colours.test.ts',
  'test/docs/generated.test.ts',
  'test/docs/links-and-commands.test.ts',
];

/** The store itself, on every engine (SQLite, PostgreSQL, PgBouncer, Redis where it applies). */
const STORE = [
  'server/test/api-keys/lookup.test.ts',
  'server/test/ops/faults.test.ts',
  'server/test/sso/exchange-contract.test.ts',
  'server/test/store/{caches,hot-paths,pg-direct-url,pg-prepared,plans,schema,sqlite-transactions}.test.ts',
];

/** HTTP suites on a real bridge, and the server's probes against real servers. */
const API = [
  'server/test/**/*.test.ts',
  'packages/node/test/**/*.test.ts',
  'test/docs/readme-backend.test.ts',
];

/**
 * API suites that each get a module graph of their own (the `api-isolated` project), which
 * `test:quick` leaves out: those that need more than a bridge on SQLite (a private PostgreSQL,
 * Redis, MariaDB, sshd, or child processes, and the probes' process-wide tunnel and slot state),
 * the property-based fuzzing (thousands of requests), and the PATCH races (hundreds of tries for
 * a lock-order deadlock that SQLite, one writer at a time, cannot have). Every other API file
 * shares a module graph per worker: importing the bridge once per worker rather than per file
 * is most of the `api` layer's CPU.
 */
const API_ISOLATED = [
  'server/test/data-sources/{lifecycle,lifecycle-instances,lifecycle-mysql,lifecycle-routes,lifecycle-ssh,mysql,patch-race,verify}.test.ts',
  'server/test/http/{fuzz-bodies,fuzz-paths,fuzz-queries}.test.ts',
  'server/test/openapi/{api-examples,code-samples,generated-client,prism}.test.ts',
  'server/test/ops/{cli,process}.test.ts',
  'server/test/sso/{fuzz-claims,instances,round-trips}.test.ts',
  'server/test/verify/{connection,leak,mysql,mysql-ssh,postgres,ssh,ssh-key-rounds,ssh-key-limits}.test.ts',
  'server/test/webhooks/{instances,data-source-events,cli}.test.ts',
];
/**
 * Unit files `test:unit` runs and `test:quick` leaves out: the import-cycle check parses every
 * product source (madge), a lint of the whole tree rather than a test of what one edits.
 */
const NOT_QUICK_UNIT = ['server/test/architecture/import-cycles.test.ts'];
const QUICK = process.env.BRIDGEKIT_QUICK === '1';

/**
 * What a file of each layer is expected to take (ms) when Vitest has no timing of its own for it
 * (a fresh clone: its results cache lives in node_modules/.vite): pack files install and build
 * real apps, browser and scale files start processes, unit files are pure.
 */
const EXPECTED_MS: Record<string, number> = {
  pack: 60_000,
  e2e: 30_000,
  scale: 20_000,
  store: 10_000,
  'api-isolated': 8_000,
  api: 5_000,
  react: 3_000,
  unit: 1_000,
};

/**
 * Runs the longest files first, whatever their layer (Vitest's own sequencer runs one project
 * after another, so a slow pack or browser file could start last and run alone at the end):
 * by the duration of the file's last run when Vitest remembers it, else by its layer's estimate,
 * then the larger file first. Failed files still go first, as in Vitest's own. The files of a
 * layer that shares a worker's modules (`isolate: false`) stay together, from where its longest
 * file would start: Vitest hands a worker on to the next file only when that file is of the same
 * project, so a run of another layer's file in between would start a new worker and import
 * everything again.
 */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    if (process.env.BRIDGEKIT_SHUFFLE === '1') return shuffled(files, config.sequence.seed);
    const score = (spec: TestSpecification) => {
      const key = `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
      const result = cache.getFileTestResults(key);
      return {
        failed: result?.failed ? 1 : 0,
        ms: result?.duration ?? EXPECTED_MS[spec.project.name] ?? 5_000,
        size: cache.getFileStats(key)?.size ?? 0,
      };
    };
    const scored = files.map((spec) => ({ spec, ...score(spec) }));
    scored.sort((a, b) => b.failed - a.failed || b.ms - a.ms || b.size - a.size);
    return keptTogether(scored.map(({ spec }) => spec));
  }
}

/** `files` in their order, but each non-isolated project's files moved up behind its first. */
function keptTogether(files: TestSpecification[]): TestSpecification[] {
  const out: TestSpecification[] = [];
  const placed = new Set<TestSpecification>();
  for (const spec of files) {
    if (placed.has(spec)) continue;
    const group =
      spec.project.config.isolate === false
        ? files.filter((other) => other.project === spec.project)
        : [spec];
    for (const member of group) placed.add(member);
    out.push(...group);
  }
  return out;
}

/**
 * BRIDGEKIT_SHUFFLE=1: the files in a random order, the same for one `--sequence.seed`, to find a
 * file that depends on what another left in a worker they share.
 */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** BRIDGEKIT_ISOLATE=1: a module graph per file in the layers that share one per worker. */
const ISOLATE = process.env.BRIDGEKIT_ISOLATE === '1';

const node = (
  name: string,
  include: string[],
  exclude: string[] = [],
  more: { globalSetup?: string[]; isolate?: boolean } = {},
) =>
  ({
    extends: true,
    test: {
      name,
      environment: 'node',
      include,
      exclude: ['**/node_modules/**', ...exclude],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      ...more,
    },
  }) satisfies TestProjectInlineConfiguration;

// One project per layer; every test file belongs to exactly one (scripts/check-test-layers.mjs).
export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
  test: {
    // Two files at a time: Vitest's default on a 2-core machine is one worker, which leaves a
    // core idle while a file waits on its child processes, browsers or PostgreSQL. More workers
    // than cores starve the files that bound latencies (drains, the fault matrix) and browser
    // waits on a busy machine. BRIDGEKIT_TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.BRIDGEKIT_TEST_WORKERS ?? 2),
    sequence: { sequencer: SlowFirstSequencer },
    // `npm run test:coverage`: line coverage of the product's sources by the unit and API layers.
    coverage: {
      provider: 'v8',
      include: ['server/src/**/*.ts', 'packages/*/src/**/*.{ts,tsx}'],
      exclude: ['**/*.test.{ts,tsx}', '**/*.stories.tsx'],
      reporter: ['text-summary', 'json-summary'],
    },
    projects: [
      // Pure files: one module graph per worker, not per file.
      node('unit', UNIT, QUICK ? NOT_QUICK_UNIT : [], { isolate: ISOLATE }),
      node('store', STORE),
      // One module graph per worker (the files pass in any order: BRIDGEKIT_SHUFFLE=1).
      node('api', API, [...UNIT, ...STORE, ...API_ISOLATED], { isolate: ISOLATE }),
      node('api-isolated', API_ISOLATED),
      {
        extends: true,
        test: {
          name: 'react',
          environment: 'jsdom',
          include: ['packages/react/src/**/*.test.{ts,tsx}', 'packages/react/test/**/*.test.tsx'],
          // The quick loop keeps the component tests; stories, SSR and translations run in full.
          exclude: ['**/node_modules/**', ...(QUICK ? ['packages/react/test/**'] : [])],
          // One module graph and one jsdom document per worker, not per file: it halves this
          // project's CPU. Every file must leave the document empty (the setup file fails one
          // that does not); BRIDGEKIT_ISOLATE=1 gives each file its own again.
          isolate: ISOLATE,
          setupFiles: [
            'packages/react/test/document-left-empty.ts',
            'packages/react/test/async-timeout.ts',
          ],
        },
      },
      node('e2e', ['test/e2e/**/*.test.ts']),
      node('scale', ['test/scale/**/*.test.ts', 'test/ops/**/*.test.ts']),
      // What hosts install and build: the tarballs, the bin, real host stacks, the README's
      // samples compiled against the packages.
      node(
        'pack',
        [
          'test/pack/**/*.test.ts',
          'test/build/**/*.test.ts',
          'test/host-stacks/**/*.test.ts',
          'test/docs/readme-samples.test.ts',
        ],
        [],
        // The four tarballs, packed once for test/pack and test/host-stacks.
        { globalSetup: ['test/pack/support/packed.ts'] },
      ),
    ],
  },
});
