#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx bridge …` works from the repository root.
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

registerHooks('./source-condition.mjs', import.meta.url);
register();
await import('../src/cli.ts');
