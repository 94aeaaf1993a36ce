import { CreateWebhookEndpointBody, UpdateWebhookEndpointBody } from '@bridgekit/contract';
import type { z } from 'zod';
import type { Deps } from '../deps';
import { findOrganizationById } from '../store/organizations';
import {
  createEndpoint,
  deleteEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
} from '../webhooks/endpoints';
import { recordTestEvent } from '../webhooks/events';
import { findEndpoint, listDeliveries, listEndpoints } from '../webhooks/store';
import { type Command, type CommandInput, requireOption, UsageError, type Values } from './command';

/** The body a schema accepts, or a usage error naming each refused option. */
function parsed<S extends z.ZodType>(schema: S, body: unknown, option: Record<string, string>) {
  const result = schema.safeParse(body);
  if (result.success) return result.data as z.infer<S>;
  const problems = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    return `--${option[field] ?? field}: ${issue.message}`;
  });
  throw new UsageError(problems.join('; '));
}

const OPTION_OF = { url: 'url', eventTypes: 'events', description: 'description' };
const eventList = (value: unknown) =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()) : undefined;

async function orgDeps({ values, getDeps }: CommandInput) {
  const orgId = requireOption(values, 'org');
  const deps = await getDeps();
  if (!(await findOrganizationById(deps.store.db, orgId))) {
    throw new UsageError(`no organization with id ${orgId}`);
  }
  return { deps, orgId };
}

/** The endpoint `--id` of `--org`; a usage error when either is unknown. */
async function endpointDeps(input: CommandInput) {
  const id = requireOption(input.values, 'id');
  const { deps, orgId } = await orgDeps(input);
  if (!(await findEndpoint(deps.store.db, orgId, id))) {
    throw new UsageError(`no webhook endpoint with id ${id} in ${orgId}`);
  }
  return { deps, orgId, id };
}

const line = (e: { id: string; enabled: number; url: string; eventTypes: string }) =>
  `${e.id}\t${e.enabled === 1 ? 'enabled' : 'disabled'}\t${e.url}\t${JSON.parse(e.eventTypes).join(',')}`;

function updateBody(values: Values) {
  if (values.enable && values.disable) throw new UsageError('--enable and --disable together');
  const body: Record<string, unknown> = {};
  if (values.url !== undefined) body.url = values.url;
  if (values.events !== undefined) body.eventTypes = eventList(values.events);
  if (values.description !== undefined) body.description = values.description;
  if (values.enable) body.enabled = true;
  if (values.disable) body.enabled = false;
  return parsed(UpdateWebhookEndpointBody, body, OPTION_OF);
}

async function run(input: CommandInput, action: string): Promise<Deps> {
  const { values, out } = input;
  if (action === 'list') {
    const { deps, orgId } = await orgDeps(input);
    for (const e of await listEndpoints(deps.store.db, orgId, { limit: 10_000 })) out(line(e));
    return deps;
  }
  if (action === 'create') {
    const body = parsed(
      CreateWebhookEndpointBody,
      { url: values.url, eventTypes: eventList(values.events), description: values.description },
      OPTION_OF,
    );
    const { deps, orgId } = await orgDeps(input);
    const { row, secret } = await createEndpoint(deps, orgId, body);
    out(`${row.id}\t${secret}`);
    return deps;
  }
  // Options are checked before the store is opened.
  const patch = action === 'update' ? updateBody(values) : {};
  const { deps, orgId, id } = await endpointDeps(input);
  switch (action) {
    case 'update':
      out(line(await updateEndpoint(deps, orgId, id, patch)));
      break;
    case 'delete':
      out(`deleted ${(await deleteEndpoint(deps, orgId, id)).id}`);
      break;
    case 'rotate-secret':
      out((await rotateEndpointSecret(deps, orgId, id)).secret);
      break;
    case 'test':
      out((await recordTestEvent(deps.store.db, orgId, id, deps.now())).id);
      break;
    case 'deliveries':
      for (const d of await listDeliveries(deps.store.db, id, { limit: 100 })) {
        out(
          `${d.id}\t${d.eventType}\t${d.status}\t${d.attempts}\t${d.lastResponseStatus ?? d.lastError ?? '-'}\t${d.nextAttemptAt ?? '-'}`,
        );
      }
      break;
    default:
      throw new Error(`unknown webhooks action ${action}`);
  }
  return deps;
}

const ORG = { org: { type: 'string' } } as const;
const ID = { ...ORG, id: { type: 'string' } } as const;
const FIELDS = {
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
} as const;

/** Webhook endpoints of an organization: the same rules as the API. */
export const WEBHOOK_COMMANDS: Command[] = [
  {
    name: 'webhooks list',
    usage: '  webhooks list --org ORG_ID        id, state, url and event types of each endpoint',
    options: ORG,
    run: (input) => run(input, 'list'),
  },
  {
    name: 'webhooks create',
    usage: `  webhooks create --org ORG_ID --url URL --events T1,T2 [--description D]
                                   prints the id and the signing secret (shown this once)`,
    options: { ...ORG, ...FIELDS },
    run: (input) => run(input, 'create'),
  },
  {
    name: 'webhooks update',
    usage: `  webhooks update --org ORG_ID --id ID [--url URL] [--events T1,T2] [--description D]
                  [--enable|--disable]`,
    options: { ...ID, ...FIELDS, enable: { type: 'boolean' }, disable: { type: 'boolean' } },
    run: (input) => run(input, 'update'),
  },
  {
    name: 'webhooks delete',
    usage: '  webhooks delete --org ORG_ID --id ID',
    options: ID,
    run: (input) => run(input, 'delete'),
  },
  {
    name: 'webhooks rotate-secret',
    usage: `  webhooks rotate-secret --org ORG_ID --id ID
                                   prints only the new secret (the old one signs for 24 hours)`,
    options: ID,
    run: (input) => run(input, 'rotate-secret'),
  },
  {
    name: 'webhooks test',
    usage: '  webhooks test --org ORG_ID --id ID queue a webhook.test event; prints its delivery',
    options: ID,
    run: (input) => run(input, 'test'),
  },
  {
    name: 'webhooks deliveries',
    usage: `  webhooks deliveries --org ORG_ID --id ID
                                   the delivery log, newest first`,
    options: ID,
    run: (input) => run(input, 'deliveries'),
  },
];
