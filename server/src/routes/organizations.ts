import { routes, type UpdateOrganizationBody } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import { ApiError } from '../api-error';
import type { Deps, Principal } from '../deps';
import { orgAccess, requireAdmin } from '../domain/access';
import { previousSecretLive, rotateJwtSecret } from '../domain/jwt-secret';
import { deleteOrganization, updateOrganization } from '../domain/organization-changes';
import { createOrganization } from '../domain/organizations';
import { DEFAULT_LIMIT, toPage } from '../domain/pagination';
import { toOrganization } from '../domain/serialize';
import { optionalJsonBody } from '../http/body';
import { jsonBodyCache } from '../http/json-cache';
import { mountJson } from '../http/route';
import {
  listOrganizationsForUser,
  type OrganizationWithRole,
  organizationListVersion,
} from '../store/organizations';

type Middleware = { auth: RequestHandler; body: RequestHandler };

/** The secret goes only to an API key: an embed session, whatever its role, never gets it. */
const secretFor = (deps: Deps, principal: Principal, include: 'jwtSecret' | undefined) =>
  include === 'jwtSecret' && principal.kind === 'apiKey' ? { jwtSecretFrom: deps.secretBox } : {};

/** When the first previous secret of `rows` stops verifying: the page reads differently then. */
const changesBySelf = (rows: OrganizationWithRole[], now: Date) =>
  Math.min(
    ...rows
      .filter((row) => previousSecretLive(row, now))
      .map((row) => Date.parse(row.previousJwtSecretExpiresAt ?? '')),
  );

function listRoute(router: Router, deps: Deps, mw: Middleware) {
  // Pages without secrets, serialized, by caller and page, for as long as no organization or
  // membership changes anywhere (the store version): an org picker lists on every page load.
  const pages = jsonBodyCache<ReturnType<typeof orgPage>>();
  const orgPage = (rows: OrganizationWithRole[], limit: number, withSecret: boolean, now: Date) =>
    toPage(rows, limit, (row) =>
      toOrganization(
        row,
        now,
        withSecret && row.role === 'ADMIN' ? { jwtSecretFrom: deps.secretBox } : {},
      ),
    );

  mountJson(router, routes.listOrganizations, mw, async ({ req, principal, query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const onlyOrgId = principal.kind === 'session' ? principal.orgId : undefined;
    const withSecret = 'jwtSecretFrom' in secretFor(deps, principal, query.include);
    const version = await organizationListVersion(deps.store, req.arrivedAt);
    const key = `${principal.userId}\n${onlyOrgId ?? ''}\n${query.cursor ?? ''}\n${limit}`;
    const now = deps.now();
    if (!withSecret) {
      const cached = pages.get(key, version, now);
      if (cached) return cached;
    }
    const rows = await listOrganizationsForUser(deps.store.db, principal.userId, {
      cursor: query.cursor,
      limit,
      onlyOrgId,
    });
    const page = orgPage(rows, limit, withSecret, now);
    return withSecret ? page : pages.set(key, version, page, changesBySelf(rows, now));
  });
}

// Where and whether the organization is embedded: the host's settings, not its tenant's. A
// session (its users are the host's customers) may not change them, as it may not rotate the
// jwtSecret or delete the organization.
const HOST_SETTINGS = ['slug', 'fullEmbedEnabled', 'embedAllowedOrigins'] as const;

/** 403 `api_key_required`, naming each host setting the body changes, when a session sends it. */
function requireKeyForHostSettings(principal: Principal, body: UpdateOrganizationBody) {
  if (principal.kind !== 'session') return;
  const touched = HOST_SETTINGS.filter((field) => body[field] !== undefined);
  if (touched.length === 0) return;
  const failure = { code: 'api_key_required', message: 'Only an API key can change this' } as const;
  throw new ApiError('Forbidden', `Only an API key can change ${touched.join(', ')}`, {
    code: 'api_key_required',
    fields: Object.fromEntries(touched.map((field) => [field, failure])),
  });
}

function lifecycleRoutes(router: Router, deps: Deps, mw: Middleware) {
  mountJson(router, routes.updateOrganization, mw, async ({ principal, params, query, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    requireKeyForHostSettings(principal, body);
    const row = await updateOrganization(deps, org.id, body);
    return { data: toOrganization(row, deps.now(), secretFor(deps, principal, query.include)) };
  });

  mountJson(router, routes.deleteOrganization, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toOrganization(await deleteOrganization(deps, org.id), deps.now()) };
  });

  const rotateMw = { ...mw, body: optionalJsonBody(mw.body) };
  mountJson(router, routes.rotateJwtSecret, rotateMw, async ({ principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    const endSessions = body?.endSessions ?? false;
    const { row, secret } = await rotateJwtSecret(deps, org.id, { endSessions });
    return { data: { ...toOrganization(row, deps.now()), jwtSecret: secret } };
  });
}

export function organizationRoutes(router: Router, deps: Deps, mw: Middleware) {
  listRoute(router, deps, mw);

  mountJson(router, routes.createOrganization, mw, async ({ principal, query, body }) => {
    const row = await createOrganization(deps, principal.userId, body);
    return { data: toOrganization(row, deps.now(), secretFor(deps, principal, query.include)) };
  });

  mountJson(router, routes.getOrganization, mw, async ({ principal, params, query }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const secret = org.role === 'ADMIN' ? secretFor(deps, principal, query.include) : {};
    return { data: toOrganization(org, deps.now(), secret) };
  });

  lifecycleRoutes(router, deps, mw);
}
