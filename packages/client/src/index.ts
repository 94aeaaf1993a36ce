export {
  BridgeError,
  type BridgeErrorInit,
  type BridgeErrorTitle,
  type ErrorParams,
  isBridgeError,
} from './bridge-error';
export { createClient } from './create-client';
export { type ClientRouteId, endpoints } from './endpoints';
export {
  canCall,
  createProxyClient,
  PROXY_READ_ROUTES,
  type ProxyClientOptions,
} from './proxy-client';
export type {
  BridgeClient,
  CallOptions,
  ClientOptions,
  FetchLike,
  GetSessionToken,
  GetSessionTokenOptions,
  RouteInput,
  RouteOutput,
} from './types';
