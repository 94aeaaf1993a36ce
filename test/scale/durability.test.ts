import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../support/bridge-data';
import { type BridgeProcess, type Exit, startBridgeProcess } from '../support/bridge-process';

const WORKERS = 12;
const ACKS = 90;

type Kind = 'organization' | 'member' | 'dataSource';
interface Ack {
  kind: Kind;
  id: string;
  /** The name, email or displayName that was sent. */
  label: string;
}

describe.each(['sqlite', 'postgres'] as const)(
  'acknowledged writes on %s survive kill -9',
  (engine) => {
    let database: { url: string; drop(): Promise<void> } | undefined;
    let data: BridgeData;
    let bridge: BridgeProcess;
    let key: string;
    let orgId: string;
    const acks: Ack[] = [];
    let inFlightAtKill = 0;
    let exit: Exit;

    const post = (path: string, body: unknown) =>
      fetch(`${bridge.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    beforeAll(async () => {
      database = engine === 'postgres' ? await createPgDatabase() : undefined;
      data = newBridgeData(database?.url);
      bridge = await startBridgeProcess({ data });
      ({ key } = await createApiKey(data));
      const res = await post('/api/public/organizations', { name: 'Durable' });
      expect(res.status).toBe(201);
      orgId = (await res.json()).data.id;

      let killed = false;
      let inFlight = 0;
      const write = async (kind: Kind): Promise<void> => {
        const label = `${kind}-${randomBytes(6).toString('hex')}`;
        const [path, body] =
          kind === 'organization'
            ? ['/api/public/organizations', { name: label }]
            : kind === 'member'
              ? [
                  `/api/public/organizations/${orgId}/members`,
                  { email: `${label}@example.com`, role: 'MEMBER' },
                ]
              : [
                  `/api/public/organizations/${orgId}/data-sources`,
                  {
                    dialect: 'POSTGRES',
                    displayName: label,
                    host: 'db.example.com',
                    username: 'app',
                    password: 'hunter2-durable',
                  },
                ];
        inFlight++;
        try {
          const res = await post(path, body);
          const json = await res.json();
          if (res.status !== 201) throw new Error(`${kind}: ${res.status} ${JSON.stringify(json)}`);
          // An answer read after the kill was still sent before it: it counts too.
          acks.push({
            kind,
            id: json.data.id,
            label: kind === 'member' ? `${label}@example.com` : label,
          });
          if (acks.length === ACKS && !killed) {
            // Right after the last acknowledgement, with the other writers still in flight.
            killed = true;
            inFlightAtKill = inFlight - 1;
            bridge.child.kill('SIGKILL');
          }
        } finally {
          inFlight--;
        }
      };
      const kinds: Kind[] = ['organization', 'member', 'dataSource'];
      const worker = async (w: number) => {
        for (let i = w; !killed; i++) {
          // Requests cut short by the kill fail; only acknowledged ones count.
          await write(kinds[i % kinds.length]!).catch((err) => {
            if (!killed) throw err;
          });
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      exit = await bridge.exited;
      bridge = await startBridgeProcess({ data });
    }, 90_000);

    afterAll(async () => {
      await bridge?.stop();
      await database?.drop();
      if (data) removeBridgeData(data);
    });

    it('was killed with writes still in flight', () => {
      expect(exit.signal).toBe('SIGKILL');
      expect(acks.length).toBeGreaterThanOrEqual(ACKS);
      expect(new Set(acks.map((a) => a.kind)).size).toBe(3);
      expect(inFlightAtKill).toBeGreaterThan(0);
    });

    it('finds every acknowledged record after the restart', async () => {
      const missing: Ack[] = [];
      for (const ack of acks) {
        const path =
          ack.kind === 'organization'
            ? `/api/public/organizations/${ack.id}`
            : ack.kind === 'member'
              ? `/api/public/organizations/${orgId}/members/${ack.id}`
              : `/api/public/organizations/${orgId}/data-sources/${ack.id}`;
        const res = await fetch(`${bridge.url}${path}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        if (res.status !== 200) {
          missing.push(ack);
          continue;
        }
        const { data: record } = await res.json();
        const label =
          ack.kind === 'organization'
            ? record.name
            : ack.kind === 'member'
              ? record.user.email
              : record.displayName;
        expect(label).toBe(ack.label);
        if (ack.kind === 'dataSource') expect(record.storedSecrets).toEqual(['password']);
      }
      expect(missing).toEqual([]);
    });
  },
);
