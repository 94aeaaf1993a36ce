/**
 * Statements that gather: for each key at most one batch in flight, and what arrives meanwhile
 * goes together in the next. Where every statement for a key waits on the same row lock
 * through its commit (a WAL flush), one at a time could pass whatever the pool size; gathered,
 * each flush carries a batch. `send` settles every item of its batch (and never throws).
 */
export function gathered<K, T>(
  send: (key: K, batch: T[]) => Promise<void>,
): (key: K, item: T) => void {
  const waiting = new Map<K, T[]>();
  const run = async (key: K, batch: T[]) => {
    waiting.set(key, []);
    await send(key, batch);
    const next = waiting.get(key)!;
    if (next.length > 0) void run(key, next);
    else waiting.delete(key);
  };
  return (key, item) => {
    const queued = waiting.get(key);
    if (queued) queued.push(item);
    else void run(key, [item]);
  };
}

/**
 * One `make(owner)` per owner (a pool, a Redis client), made on first use and dropped with the
 * owner: the state of the statements above, kept per connection pool.
 */
export function perOwner<O extends object, V>(make: (owner: O) => V): (owner: O) => V {
  const values = new WeakMap<O, V>();
  return (owner) => {
    let value = values.get(owner);
    if (value === undefined) {
      value = make(owner);
      values.set(owner, value);
    }
    return value;
  };
}
