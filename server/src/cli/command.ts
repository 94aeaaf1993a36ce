import type { ParseArgsConfig } from 'node:util';
import type { Deps } from '../deps';
import { normalizeEmail } from '../domain/members';

/** A bad invocation: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CommandInput {
  values: Values;
  positionals: string[];
  out: (line: string) => void;
  /** Opens the store (migrating it); `rotating` lets a new BRIDGE_SESSION_SECRET through. */
  getDeps: (options?: { rotating?: boolean }) => Promise<Deps>;
}

/** One `bridge` command: its words, its lines in the usage, its arguments and what it does. */
export interface Command {
  name: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: boolean;
  run(input: CommandInput): Promise<Deps>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function requireEmail(value: unknown): string {
  if (!value) throw new UsageError('--email is required');
  const text = String(value);
  if (!EMAIL.test(text.trim())) throw new UsageError(`--email: "${text}" is not an email address`);
  return normalizeEmail(text);
}

export function requireOption(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export const optionalString = (value: unknown) => value as string | undefined;
