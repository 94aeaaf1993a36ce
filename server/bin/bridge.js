#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx bridge …` works from the repository root.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
