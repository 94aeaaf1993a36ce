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
