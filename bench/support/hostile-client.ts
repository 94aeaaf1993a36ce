// The attacking side of bench/hostile.ts, in its own process: reads the attackers (JSON) on
// stdin, keeps one verify going per attacker until SIGTERM, then prints the statuses it saw.
// Requests sharing a key are spaced to argv[3] per second: the bridge's per-key request limit,
// which the bench lifts for its reader, still binds an attacker's credentials.
import type { Attacker } from './hostile-verifies';

const url = process.argv[2]!;
const spacingMs = 1000 / Number(process.argv[3] ?? 10);
const nextSlot = new Map<string, number>();

/** Waits for the key's next free request slot. */
async function paced(key: string) {
  const now = performance.now();
  const slot = Math.max(now, nextSlot.get(key) ?? now);
  nextSlot.set(key, slot + spacingMs);
  if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
}
let input = '';
for await (const chunk of process.stdin) input += chunk;
const attackers = JSON.parse(input) as Attacker[];

let stopped = false;
const statuses: Record<string, number> = {};

async function keepGoing(attacker: Attacker) {
  while (!stopped) {
    await paced(attacker.key);
    if (stopped) break;
    let status = 'error';
    let wait = 0;
    try {
      const res = await fetch(
        `${url}/api/public/organizations/${attacker.orgId}/data-sources/verify`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${attacker.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(attacker.body),
        },
      );
      await res.arrayBuffer();
      status = String(res.status);
      if (res.status === 429) wait = Number(res.headers.get('retry-after') ?? 1) * 1000;
    } catch {
      wait = 100;
    }
    if (stopped) break;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const running = Promise.all(attackers.map(keepGoing));
process.once('SIGTERM', () => {
  stopped = true;
  process.stdout.write(JSON.stringify(statuses));
  process.exit(0);
});
await running;
