import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFailureLog } from '../../src/failure-log';
import { createLogger } from '../../src/log';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger('info', sink) };
}

describe('createFailureLog', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs the first failure of a kind at once, then one line with the count per interval', () => {
    const { lines, log } = capture();
    const failures = createFailureLog(log, 10_000);
    for (let i = 0; i < 220; i++) {
      failures.report('store_unavailable', 'The store is unavailable', { err: 'ECONNREFUSED' });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      failure: 'store_unavailable',
      err: 'ECONNREFUSED',
      msg: 'The store is unavailable',
    });
    vi.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      failure: 'store_unavailable',
      repeated: 219,
      intervalS: 10,
      msg: 'The store is unavailable (219 more in the last 10 s)',
    });
  });

  it('keeps kinds apart, writes no summary for a single failure, and starts over after', () => {
    const { lines, log } = capture();
    const failures = createFailureLog(log, 1000);
    failures.report('redis_error', 'redis error');
    failures.report('store_unavailable', 'The store is unavailable');
    vi.advanceTimersByTime(1000);
    expect(lines.map((l) => l.msg)).toEqual(['redis error', 'The store is unavailable']);
    failures.report('redis_error', 'redis error');
    expect(lines).toHaveLength(3);
  });

  it('carries the instance (hostname, pid) like every line', () => {
    const { lines, log } = capture();
    createFailureLog(log, 1000).report('redis_error', 'redis error');
    expect(lines[0]).toMatchObject({ pid: process.pid, hostname: expect.any(String) });
  });
});
