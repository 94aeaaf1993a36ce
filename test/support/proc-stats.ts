import fs from 'node:fs';

// Readings of a running process from /proc (Linux), for benchmarks and soak runs.

/** CPU time (user + system, ms) the process has used so far. */
export function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
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

function statFields(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

/** The parent of process `pid`. */
export const parentOf = (pid: number) => Number(statFields(pid)[1]);

/** Clock ticks of `pid` and its children, living or exited and waited for. */
function treeTicks(pid: number, processes: readonly number[]): number {
  const own = statFields(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const child of processes) {
    try {
      if (parentOf(child) === pid) ticks += treeTicks(child, processes);
    } catch {
      // It ended meanwhile: its time moved to its parent's children's time.
    }
  }
  return ticks;
}

/**
 * CPU time (ms) of process `pid` and all its descendants, living or exited. The difference of
 * two readings is what the tree spent between them, children that came and went included (a
 * PostgreSQL postmaster's backends, say).
 */
export function treeCpuMsOf(pid: number): number {
  const processes = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number);
  return (treeTicks(pid, processes) * 1000) / 100;
}
