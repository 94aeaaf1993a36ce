import { z } from 'zod';
import { dataOf, type ErrorTitle, Pagination, pageOf, pageQueryOf } from './common';
import {
  CreateDataSourceBody,
  DataSource,
  DataSourceParams,
  UpdateDataSourceBody,
  VerifyDataSourceBody,
  VerifyResult,
} from './data-source';
import { DataSourceSchema, SchemaQuery } from './data-source-schema';
import { AddMemberBody, Member, MemberParams, UpdateMemberBody } from './member';
import {
  CreateOrganizationBody,
  ListOrganizationsQuery,
  Organization,
  OrganizationQuery,
  OrganizationWithSecret,
  OrgParams,
  RotateJwtSecretBody,
  UpdateOrganizationBody,
} from './organization';
import {
  EmbedSession,
  EmbedSessionBody,
  RenewedSession,
  SessionInfo,
  SsoBrowserQuery,
  SsoExchangeBody,
  SsoSession,
} from './sso';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointParams,
  WebhookEndpointWithSecret,
} from './webhook';

/** A bearer credential: an API key (`bk_key_…`) or an embed session token. */
export type BearerCredential = 'apiKey' | 'session';
export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';
export type StaticContentType = 'text/javascript' | 'text/css';

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI-style path, `{param}` placeholders. */
  path: string;
  summary: string;
  tag: 'Organizations' | 'Members' | 'Data sources' | 'Webhooks' | 'SSO' | 'Embed' | 'Service';
  /** `bearer`: API key or embed session; `none`: open. */
  auth: 'bearer' | 'none';
  /**
   * The one bearer credential a `bearer` route takes: `apiKey` (a session gets 403
   * `api_key_required`) or `session` (an API key is refused). Omitted: either.
   */
  credential?: BearerCredential;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Success status and body. An HTML, static-file or redirect route has no JSON response schema. */
  status: number;
  response?: z.ZodType;
  /** What a non-JSON route answers; a static-file route lists each type it serves. */
  contentType?: 'application/json' | 'text/html' | readonly StaticContentType[];
  /** Error titles this route can answer with (besides InternalError). */
  errors: ErrorTitle[];
}

const AUTHED: ErrorTitle[] = ['Unauthorized', 'TooManyRequests', 'ServiceUnavailable'];
// A route with an organization in its path answers 404 when the caller can't see it.
const IN_ORG: ErrorTitle[] = [...AUTHED, 'NotFound'];
const WITH_BODY: ErrorTitle[] = ['ValidationError', 'PayloadTooLarge', 'UnsupportedMediaType'];
const AnyJson = z.record(z.string(), z.unknown());
const Health = z.object({
  status: z.enum(['ok', 'unavailable']),
  store: z.enum(['ok', 'unavailable']),
  /** Present when the bridge uses Redis (`REDIS_URL`). */
  redis: z.enum(['ok', 'unavailable']).optional(),
});

const Liveness = z.object({ status: z.literal('ok') });
const Readiness = z.object({
  status: z.literal('ready'),
  store: z.literal('ok'),
  /**
   * Present when the bridge uses Redis (`REDIS_URL`). `unavailable` still leaves the instance
   * ready: API requests go on under a per-instance rate limit; SSO exchanges answer 503.
   */
  redis: z.enum(['ok', 'unavailable']).optional(),
});

/** Every route the bridge serves. The OpenAPI document and the typed client derive from it. */
export const routes = {
  listOrganizations: {
    method: 'get',
    path: '/api/public/organizations',
    summary: 'List the organizations the caller belongs to',
    tag: 'Organizations',
    auth: 'bearer',
    query: ListOrganizationsQuery,
    status: 200,
    response: pageOf(Organization),
    errors: [...AUTHED, 'ValidationError', 'Forbidden'],
  },
  createOrganization: {
    method: 'post',
    path: '/api/public/organizations',
    summary: 'Create an organization; the caller becomes its ADMIN',
    tag: 'Organizations',
    auth: 'bearer',
    credential: 'apiKey',
    query: OrganizationQuery,
    body: CreateOrganizationBody,
    status: 201,
    response: dataOf(Organization),
    errors: [...AUTHED, ...WITH_BODY, 'Conflict', 'Forbidden'],
  },
  getOrganization: {
    method: 'get',
    path: '/api/public/organizations/{orgId}',
    summary: 'Get one organization',
    tag: 'Organizations',
    auth: 'bearer',
    params: OrgParams,
    query: OrganizationQuery,
    status: 200,
    response: dataOf(Organization),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  updateOrganization: {
    method: 'patch',
    path: '/api/public/organizations/{orgId}',
    summary:
      'Change an organization (ADMIN); omitted fields are unchanged, changes hold from the next request. slug, fullEmbedEnabled and embedAllowedOrigins need an API key (a session gets 403 api_key_required)',
    tag: 'Organizations',
    auth: 'bearer',
    params: OrgParams,
    query: OrganizationQuery,
    body: UpdateOrganizationBody,
    status: 200,
    response: dataOf(Organization),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden', 'Conflict'],
  },
  deleteOrganization: {
    method: 'delete',
    path: '/api/public/organizations/{orgId}',
    summary:
      'Delete an organization (ADMIN, API key only) with its data sources, memberships and sessions; returns the deleted record',
    tag: 'Organizations',
    auth: 'bearer',
    credential: 'apiKey',
    params: OrgParams,
    status: 200,
    response: dataOf(Organization),
    errors: [...IN_ORG, 'Forbidden', 'ValidationError'],
  },
  rotateJwtSecret: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/jwt-secret',
    summary:
      'Replace the SSO signing secret (ADMIN, API key only); the previous one verifies until previousJwtSecretExpiresAt. Optional body {"endSessions": true} also ends every session signed in up to the rotation',
    tag: 'Organizations',
    auth: 'bearer',
    credential: 'apiKey',
    params: OrgParams,
    body: RotateJwtSecretBody,
    status: 200,
    response: dataOf(OrganizationWithSecret),
    errors: [...IN_ORG, 'Forbidden', ...WITH_BODY],
  },
  listMembers: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/members',
    summary: 'List the members of an organization',
    tag: 'Members',
    auth: 'bearer',
    params: OrgParams,
    query: pageQueryOf('mem'),
    status: 200,
    response: pageOf(Member),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  addMember: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/members',
    summary: 'Add a member by email (ADMIN); creates the user when new',
    tag: 'Members',
    auth: 'bearer',
    params: OrgParams,
    body: AddMemberBody,
    status: 201,
    response: dataOf(Member),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden', 'Conflict'],
  },
  getMember: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/members/{id}',
    summary: 'Get one member',
    tag: 'Members',
    auth: 'bearer',
    params: MemberParams,
    status: 200,
    response: dataOf(Member),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  updateMember: {
    method: 'patch',
    path: '/api/public/organizations/{orgId}/members/{id}',
    summary: "Change a member's role (ADMIN); the last ADMIN can't be demoted",
    tag: 'Members',
    auth: 'bearer',
    params: MemberParams,
    body: UpdateMemberBody,
    status: 200,
    response: dataOf(Member),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden', 'Conflict'],
  },
  removeMember: {
    method: 'delete',
    path: '/api/public/organizations/{orgId}/members/{id}',
    summary:
      "Remove a member (ADMIN, or the member itself); the last ADMIN can't be removed. Returns the removed record",
    tag: 'Members',
    auth: 'bearer',
    params: MemberParams,
    status: 200,
    response: dataOf(Member),
    errors: [...IN_ORG, 'Forbidden', 'Conflict', 'ValidationError'],
  },
  listDataSources: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/data-sources',
    summary: 'List the data sources of an organization',
    tag: 'Data sources',
    auth: 'bearer',
    params: OrgParams,
    query: pageQueryOf('ds'),
    status: 200,
    response: pageOf(DataSource),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  createDataSource: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/data-sources',
    summary: 'Create a data source (ADMIN); does not connect',
    tag: 'Data sources',
    auth: 'bearer',
    params: OrgParams,
    body: CreateDataSourceBody,
    status: 201,
    response: dataOf(DataSource),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden'],
  },
  verifyDataSource: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/data-sources/verify',
    summary: 'Check that connection details can connect (ADMIN); changes nothing',
    tag: 'Data sources',
    auth: 'bearer',
    params: OrgParams,
    body: VerifyDataSourceBody,
    status: 200,
    response: dataOf(VerifyResult),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden', 'VerificationFailed'],
  },
  getDataSource: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/data-sources/{id}',
    summary: 'Get one data source',
    tag: 'Data sources',
    auth: 'bearer',
    params: DataSourceParams,
    status: 200,
    response: dataOf(DataSource),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  updateDataSource: {
    method: 'patch',
    path: '/api/public/organizations/{orgId}/data-sources/{id}',
    summary: 'Update a data source (ADMIN); omitted fields are unchanged',
    tag: 'Data sources',
    auth: 'bearer',
    params: DataSourceParams,
    body: UpdateDataSourceBody,
    status: 200,
    response: dataOf(DataSource),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden'],
  },
  deleteDataSource: {
    method: 'delete',
    path: '/api/public/organizations/{orgId}/data-sources/{id}',
    summary: 'Delete a data source (ADMIN); returns the deleted record',
    tag: 'Data sources',
    auth: 'bearer',
    params: DataSourceParams,
    status: 200,
    response: dataOf(DataSource),
    errors: [...IN_ORG, 'Forbidden', 'ValidationError'],
  },
  checkDataSourceHealth: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/data-sources/{id}/health-check',
    summary:
      'Check now that the data source answers (ADMIN); returns the record with the result. Counts against the verify rate limit',
    tag: 'Data sources',
    auth: 'bearer',
    params: DataSourceParams,
    status: 200,
    response: dataOf(DataSource),
    errors: [...IN_ORG, 'Forbidden', 'ValidationError'],
  },
  syncDataSource: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/data-sources/{id}/sync',
    summary:
      'Queue a schema sync now (ADMIN); 202 with the record as it stands, lastSyncStatus turns SYNCING when the sync starts',
    tag: 'Data sources',
    auth: 'bearer',
    params: DataSourceParams,
    status: 202,
    response: dataOf(DataSource),
    errors: [...IN_ORG, 'Forbidden', 'ValidationError'],
  },
  getDataSourceSchema: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/data-sources/{id}/schema',
    summary:
      'The tables, views and columns the last successful sync read, a page of tables at a time',
    tag: 'Data sources',
    auth: 'bearer',
    params: DataSourceParams,
    query: SchemaQuery,
    status: 200,
    response: z.object({ data: DataSourceSchema, pagination: Pagination }),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  listWebhookEndpoints: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/webhook-endpoints',
    summary: "List an organization's webhook endpoints (ADMIN, API key only)",
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: OrgParams,
    query: pageQueryOf('whe'),
    status: 200,
    response: pageOf(WebhookEndpoint),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  createWebhookEndpoint: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/webhook-endpoints',
    summary:
      'Add a webhook endpoint (ADMIN, API key only); the answer shows its signing secret, this once',
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: OrgParams,
    body: CreateWebhookEndpointBody,
    status: 201,
    response: dataOf(WebhookEndpointWithSecret),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden'],
  },
  getWebhookEndpoint: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/webhook-endpoints/{id}',
    summary: 'Get one webhook endpoint (ADMIN, API key only); never its secret',
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: WebhookEndpointParams,
    status: 200,
    response: dataOf(WebhookEndpoint),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  updateWebhookEndpoint: {
    method: 'patch',
    path: '/api/public/organizations/{orgId}/webhook-endpoints/{id}',
    summary:
      'Change a webhook endpoint (ADMIN, API key only); `enabled: true` turns one the bridge disabled back on',
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: WebhookEndpointParams,
    body: UpdateWebhookEndpointBody,
    status: 200,
    response: dataOf(WebhookEndpoint),
    errors: [...IN_ORG, ...WITH_BODY, 'Forbidden'],
  },
  deleteWebhookEndpoint: {
    method: 'delete',
    path: '/api/public/organizations/{orgId}/webhook-endpoints/{id}',
    summary:
      'Delete a webhook endpoint (ADMIN, API key only) and its pending deliveries; returns the deleted record',
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: WebhookEndpointParams,
    status: 200,
    response: dataOf(WebhookEndpoint),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  rotateWebhookSecret: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/webhook-endpoints/{id}/secret',
    summary:
      'Replace the signing secret (ADMIN, API key only): the new one is shown this once; the old one signs beside it until previousSecretExpiresAt',
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: WebhookEndpointParams,
    status: 200,
    response: dataOf(WebhookEndpointWithSecret),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  testWebhookEndpoint: {
    method: 'post',
    path: '/api/public/organizations/{orgId}/webhook-endpoints/{id}/test',
    summary:
      'Send a `webhook.test` event to this endpoint (ADMIN, API key only); 202 with its delivery, followed in the delivery log',
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: WebhookEndpointParams,
    status: 202,
    response: dataOf(WebhookDelivery),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  listWebhookDeliveries: {
    method: 'get',
    path: '/api/public/organizations/{orgId}/webhook-endpoints/{id}/deliveries',
    summary:
      "An endpoint's delivery log, newest first (ADMIN, API key only): status, attempts, last response and next attempt",
    tag: 'Webhooks',
    auth: 'bearer',
    credential: 'apiKey',
    params: WebhookEndpointParams,
    query: pageQueryOf('whd'),
    status: 200,
    response: pageOf(WebhookDelivery),
    errors: [...IN_ORG, 'ValidationError', 'Forbidden'],
  },
  ssoExchange: {
    method: 'post',
    path: '/api/sso/jwt',
    summary: 'Exchange a host-signed JWT for an embed session token',
    tag: 'SSO',
    auth: 'none',
    body: SsoExchangeBody,
    status: 200,
    response: dataOf(SsoSession),
    errors: ['Unauthorized', 'Forbidden', 'TooManyRequests', 'ServiceUnavailable', ...WITH_BODY],
  },
  ssoBrowser: {
    method: 'get',
    path: '/api/sso/jwt',
    summary:
      'Full-embed sign-in: redirects the frame to the embed page with a single-use handoff code and the checked framing origin in the fragment (no cookie)',
    tag: 'SSO',
    auth: 'none',
    query: SsoBrowserQuery,
    status: 302,
    contentType: 'text/html',
    errors: [
      'ValidationError',
      'Unauthorized',
      'Forbidden',
      'TooManyRequests',
      'ServiceUnavailable',
    ],
  },
  ssoSession: {
    method: 'get',
    path: '/api/sso/session',
    summary:
      'The calling session (session token only): its member with the current role, its organization and when it ends',
    tag: 'SSO',
    auth: 'bearer',
    credential: 'session',
    status: 200,
    response: dataOf(SessionInfo),
    errors: [
      'Unauthorized',
      'Forbidden',
      'TooManyRequests',
      'ServiceUnavailable',
      'ValidationError',
    ],
  },
  ssoRefresh: {
    method: 'post',
    path: '/api/sso/session/refresh',
    summary:
      'Renew the calling session (session token only): a new token for the same session, never past its absolute limit',
    tag: 'SSO',
    auth: 'bearer',
    credential: 'session',
    status: 200,
    response: dataOf(RenewedSession),
    errors: [
      'Unauthorized',
      'Forbidden',
      'TooManyRequests',
      'ServiceUnavailable',
      'ValidationError',
    ],
  },
  ssoLogout: {
    method: 'post',
    path: '/api/sso/logout',
    summary: 'End the calling session on every instance (its session token as bearer)',
    tag: 'SSO',
    auth: 'bearer',
    credential: 'session',
    status: 204,
    errors: [
      'Unauthorized',
      'Forbidden',
      'TooManyRequests',
      'ServiceUnavailable',
      'ValidationError',
    ],
  },
  embedPage: {
    method: 'get',
    path: '/embed/orgs/{slug}',
    summary:
      'Full-embed page of an organization: signs in with the handoff code GET /api/sso/jwt put in its fragment',
    tag: 'Embed',
    auth: 'none',
    params: z.strictObject({ slug: z.string() }),
    status: 200,
    contentType: 'text/html',
    errors: ['NotFound', 'ServiceUnavailable'],
  },
  embedSession: {
    method: 'post',
    path: '/embed/session',
    summary:
      "The embed page's own call, inside a frame of the origin that signed in: trades a single-use handoff code for a bearer session token (send X-Bridgekit-Embed: 1 and framingOrigin; any other redemption is refused and burns the code)",
    tag: 'Embed',
    auth: 'none',
    body: EmbedSessionBody,
    status: 200,
    response: dataOf(EmbedSession),
    errors: ['Unauthorized', 'Forbidden', ...WITH_BODY, 'ServiceUnavailable'],
  },
  embedAsset: {
    method: 'get',
    path: '/embed/assets/{file}',
    summary:
      "The full-embed page's script and stylesheet, built from the React kit (`npm run build:embed`)",
    tag: 'Embed',
    auth: 'none',
    params: z.strictObject({ file: z.enum(['embed.js', 'embed.css']) }),
    status: 200,
    contentType: ['text/javascript', 'text/css'],
    errors: ['NotFound'],
  },
  openApi: {
    method: 'get',
    path: '/api/public/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Service',
    auth: 'none',
    status: 200,
    response: AnyJson,
    errors: ['ValidationError'],
  },
  docs: {
    method: 'get',
    path: '/docs',
    summary: 'The API reference, with examples and try-it (served by the bridge, works offline)',
    tag: 'Service',
    auth: 'none',
    status: 200,
    contentType: 'text/html',
    errors: ['ValidationError'],
  },
  docsAsset: {
    method: 'get',
    path: '/docs/assets/{file}',
    summary: "The reference page's scripts: the Scalar renderer (from npm) and its start-up script",
    tag: 'Service',
    auth: 'none',
    params: z.strictObject({ file: z.enum(['scalar.js', 'docs.js']) }),
    status: 200,
    contentType: ['text/javascript'],
    errors: ['NotFound', 'ValidationError'],
  },
  health: {
    method: 'get',
    path: '/healthz',
    summary:
      "Liveness and each dependency's health (store, Redis): 503 naming the failing one, answered within a short deadline",
    tag: 'Service',
    auth: 'none',
    status: 200,
    response: Health,
    errors: ['ServiceUnavailable', 'ValidationError'],
  },
  live: {
    method: 'get',
    path: '/livez',
    summary:
      'Liveness: the process answers. Checks no dependency, so a slow store or Redis never gets a healthy instance restarted',
    tag: 'Service',
    auth: 'none',
    status: 200,
    response: Liveness,
    errors: ['ValidationError'],
  },
  ready: {
    method: 'get',
    path: '/readyz',
    summary:
      'Readiness for a load balancer: 503 naming what is missing (the store, or a drain after SIGTERM); Redis down keeps it ready',
    tag: 'Service',
    auth: 'none',
    status: 200,
    response: Readiness,
    errors: ['ServiceUnavailable', 'ValidationError'],
  },
} as const satisfies Record<string, RouteDef>;

export type Routes = typeof routes;
export type RouteId = keyof Routes;

/** `/a/{b}` → `/a/:b` for Express. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
