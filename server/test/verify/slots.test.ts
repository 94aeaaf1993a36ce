import { describe, expect, it } from 'vitest';
import { createSlots } from '../../src/verify/slots';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createSlots', () => {
  it('refuses a bad limit or reserve at creation', () => {
    expect(() => createSlots({ limit: 0 })).toThrow(/limit/);
    expect(() => createSlots({ limit: 2, reserved: 2 })).toThrow(/reserved/);
  });

  it('tryAcquire answers undefined once every slot is taken, and again after a release', () => {
    const slots = createSlots({ limit: 2 });
    const a = slots.tryAcquire();
    const b = slots.tryAcquire();
    expect(a).toBeTypeOf('function');
    expect(b).toBeTypeOf('function');
    expect(slots.tryAcquire()).toBeUndefined();
    a?.();
    a?.(); // a second release gives nothing back twice
    expect(slots.inUse).toBe(1);
    expect(slots.tryAcquire()).toBeTypeOf('function');
    expect(slots.tryAcquire()).toBeUndefined();
  });

  it('acquire waits in line and is served first come, first served', async () => {
    const slots = createSlots({ limit: 1 });
    const first = await slots.acquire();
    const order: string[] = [];
    const second = slots.acquire().then((release) => {
      order.push('second');
      return release;
    });
    const third = slots.acquire().then((release) => {
      order.push('third');
      return release;
    });
    await tick();
    expect(order).toEqual([]);
    expect(slots.waiting).toBe(2);
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(slots.inUse).toBe(0);
  });

  it('never lets tryAcquire jump ahead of a waiter', async () => {
    const slots = createSlots({ limit: 1 });
    const first = slots.tryAcquire();
    const waiter = slots.acquire();
    first?.();
    expect(slots.tryAcquire()).toBeUndefined();
    (await waiter)();
  });

  it('keeps the reserved slots for tryAcquire', async () => {
    const slots = createSlots({ limit: 3, reserved: 1 });
    const a = await slots.acquire();
    const b = await slots.acquire();
    let third = false;
    const waiting = slots.acquire().then((release) => {
      third = true;
      return release;
    });
    await tick();
    expect(third).toBe(false);
    const immediate = slots.tryAcquire();
    expect(immediate).toBeTypeOf('function');
    expect(slots.tryAcquire()).toBeUndefined();
    immediate?.();
    await tick();
    expect(third).toBe(false); // the freed slot is a reserved one
    a();
    (await waiting)();
    b();
    expect(slots.inUse).toBe(0);
  });

  it('gives up the place in line when the signal aborts', async () => {
    const slots = createSlots({ limit: 1 });
    const held = slots.tryAcquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(slots.waiting).toBe(0);
    await expect(slots.acquire(AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    held?.();
    expect(slots.inUse).toBe(0);
  });
});
