export { BridgeError, type BridgeErrorTitle, isBridgeError } from '@bridgekit/client';
export type { SsoSession } from '@bridgekit/contract';
export {
  type CreateSsoTokenOptions,
  createSsoToken,
  type SsoUser,
} from './create-sso-token';
export {
  BridgeSsoError,
  type ExchangeSsoTokenOptions,
  exchangeSsoToken,
} from './exchange-sso-token';
export {
  createProxyHandler,
  DEFAULT_PROXY_ROUTES,
  type ProxyHandlerOptions,
} from './proxy-handler';
export {
  type RawWebhookRequest,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookVerificationCode,
  WebhookVerificationError,
} from './verify-webhook';
