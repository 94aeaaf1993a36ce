import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Process groups of children started with `detached: true` (Linux): a browser's helpers inherit
// its group, so one signal reaches them all, and /proc tells when they are gone.

export interface GroupProcess {
  pid: number;
  /** The command name (`comm`, at most 15 characters), e.g. `WebKitWebProces`. */
  name: string;
}

/**
 * The live processes of the group led by `child`. Zombies do not count unless asked for:
 * helpers are reparented when their parent exits, and reaping them is init's business.
 */
export function groupProcesses(
  child: ChildProcess | undefined,
  { zombies = false } = {},
): GroupProcess[] {
  if (!child?.pid) return [];
  const found: GroupProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (Number(pgrp) === child.pid && (zombies || state !== 'Z')) {
      found.push({ pid: Number(entry), name: stat.slice(stat.indexOf('(') + 1, close) });
    }
  }
  return found;
}

export function signalGroup(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {}
}

const groupAlive = (child: ChildProcess | undefined) => groupProcesses(child).length > 0;

/** Stops a process group: SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
export async function stopGroup(child: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!groupAlive(child)) return;
  signalGroup(child, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(child) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive(child)) {
    signalGroup(child, 'SIGKILL');
    const hard = Date.now() + 2_000;
    while (groupAlive(child) && Date.now() < hard) await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A watchdog shell in its own process group: once this (test) process is gone, even killed by
 * SIGKILL, it kills the groups listed with `reapLater(dir, …)` and removes `dir`. Kill it once
 * the caller has cleaned up itself. (dash's `kill` takes no `--`, hence `kill -9 -<pgid>`.)
 */
export function startReaper(dir: string): ChildProcess {
  const script = [
    'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
    'for g in $(cat "$2/pgids" 2>/dev/null); do kill -9 "-$g" 2>/dev/null; done',
    'rm -rf -- "$2"',
  ].join('\n');
  const reaper = spawn('/bin/sh', ['-c', script, 'reaper', String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  reaper.unref();
  return reaper;
}

/** Hands a detached child's process group to the reaper watching `dir`. */
export function reapLater(dir: string, child: ChildProcess): void {
  if (child.pid) appendFileSync(path.join(dir, 'pgids'), `${child.pid}\n`);
}
