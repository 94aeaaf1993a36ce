import type { RouteId, Routes } from '@bridgekit/contract';

/** Tags a browser or host backend never calls through the client (same-origin embed page, service routes). */
type NotForClients = 'Service' | 'Embed';

/** JSON API routes: everything but the HTML, redirect, service and embed-page routes. */
export type ClientRouteId = {
  [K in RouteId]: Routes[K] extends { contentType: 'text/html' }
    ? never
    : Routes[K]['tag'] extends NotForClients
      ? never
      : K;
}[RouteId];

type Endpoint<K extends ClientRouteId> = readonly [
  Routes[K]['method'],
  Routes[K]['path'],
  Routes[K]['auth'],
];

/**
 * Method, path and auth of each route, without the zod schemas so that browsers do
 * not download them. `satisfies` makes any drift from the contract a type error.
 */
export const endpoints = {
  listOrganizations: ['get', '/api/public/organizations', 'bearer'],
  createOrganization: ['post', '/api/public/organizations', 'bearer'],
  getOrganization: ['get', '/api/public/organizations/{orgId}', 'bearer'],
  updateOrganization: ['patch', '/api/public/organizations/{orgId}', 'bearer'],
  deleteOrganization: ['delete', '/api/public/organizations/{orgId}', 'bearer'],
  rotateJwtSecret: ['post', '/api/public/organizations/{orgId}/jwt-secret', 'bearer'],
  listMembers: ['get', '/api/public/organizations/{orgId}/members', 'bearer'],
  addMember: ['post', '/api/public/organizations/{orgId}/members', 'bearer'],
  getMember: ['get', '/api/public/organizations/{orgId}/members/{id}', 'bearer'],
  updateMember: ['patch', '/api/public/organizations/{orgId}/members/{id}', 'bearer'],
  removeMember: ['delete', '/api/public/organizations/{orgId}/members/{id}', 'bearer'],
  listDataSources: ['get', '/api/public/organizations/{orgId}/data-sources', 'bearer'],
  createDataSource: ['post', '/api/public/organizations/{orgId}/data-sources', 'bearer'],
  verifyDataSource: ['post', '/api/public/organizations/{orgId}/data-sources/verify', 'bearer'],
  getDataSource: ['get', '/api/public/organizations/{orgId}/data-sources/{id}', 'bearer'],
  updateDataSource: ['patch', '/api/public/organizations/{orgId}/data-sources/{id}', 'bearer'],
  deleteDataSource: ['delete', '/api/public/organizations/{orgId}/data-sources/{id}', 'bearer'],
  checkDataSourceHealth: [
    'post',
    '/api/public/organizations/{orgId}/data-sources/{id}/health-check',
    'bearer',
  ],
  syncDataSource: ['post', '/api/public/organizations/{orgId}/data-sources/{id}/sync', 'bearer'],
  getDataSourceSchema: [
    'get',
    '/api/public/organizations/{orgId}/data-sources/{id}/schema',
    'bearer',
  ],
  listWebhookEndpoints: ['get', '/api/public/organizations/{orgId}/webhook-endpoints', 'bearer'],
  createWebhookEndpoint: ['post', '/api/public/organizations/{orgId}/webhook-endpoints', 'bearer'],
  getWebhookEndpoint: ['get', '/api/public/organizations/{orgId}/webhook-endpoints/{id}', 'bearer'],
  updateWebhookEndpoint: [
    'patch',
    '/api/public/organizations/{orgId}/webhook-endpoints/{id}',
    'bearer',
  ],
  deleteWebhookEndpoint: [
    'delete',
    '/api/public/organizations/{orgId}/webhook-endpoints/{id}',
    'bearer',
  ],
  rotateWebhookSecret: [
    'post',
    '/api/public/organizations/{orgId}/webhook-endpoints/{id}/secret',
    'bearer',
  ],
  testWebhookEndpoint: [
    'post',
    '/api/public/organizations/{orgId}/webhook-endpoints/{id}/test',
    'bearer',
  ],
  listWebhookDeliveries: [
    'get',
    '/api/public/organizations/{orgId}/webhook-endpoints/{id}/deliveries',
    'bearer',
  ],
  ssoExchange: ['post', '/api/sso/jwt', 'none'],
  ssoSession: ['get', '/api/sso/session', 'bearer'],
  ssoRefresh: ['post', '/api/sso/session/refresh', 'bearer'],
  ssoLogout: ['post', '/api/sso/logout', 'bearer'],
} as const satisfies { [K in ClientRouteId]: Endpoint<K> };
