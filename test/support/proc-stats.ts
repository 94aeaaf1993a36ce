import fs from 'node:fs';

// Readings of a running process from /proc (Linux), for benchmarks and soak runs.

/** The fields of /proc/<pid>/stat after the command name (state first). */
function statFields(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

/** CPU time (user + system, ms) the process has used so far. */
export function cpuMsOf(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/** Resident set size now, in MB. */
export const rssMbOf = (pid: number) => statusMb(pid, 'VmRSS');

/** Peak resident set size since the process started (VmHWM), in MB. */
export const peakRssMbOf = (pid: number) => statusMb(pid, 'VmHWM');

/** Threads the process runs now (main, libuv pool, V8 helpers, workers). */
export function threadsOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Starts a new peak: VmHWM drops to the current RSS (Linux `clear_refs` 5; needs privileges). */
export function resetPeakRss(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The parent of process `pid`. */
export const parentOf = (pid: number) => Number(statFields(pid)[1]);

/**
 * CPU time (ms) of process `pid` and all its descendants, living or exited. The difference of
 * two readings is what the tree spent between them, children that came and went included (a
 * PostgreSQL postmaster's backends, say): an exited child's time is in its parent's own
 * children's time once waited for.
 */
export function treeCpuMsOf(root: number): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const pid = Number(entry);
      const fields = statFields(pid);
      const siblings = children.get(Number(fields[1]));
      if (siblings) siblings.push(pid);
      else children.set(Number(fields[1]), [pid]);
      ticks.set(
        pid,
        Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
      );
    } catch {
      // It ended meanwhile: its time is in its parent's children's time.
    }
  }
  const sum = (p: number): number =>
    (ticks.get(p) ?? 0) + (children.get(p) ?? []).reduce((n, c) => n + sum(c), 0);
  return (sum(root) * 1000) / 100;
}
