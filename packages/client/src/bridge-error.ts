import type { ErrorTitle, FieldErrors } from '@bridgekit/contract';

/** Values a failure's detail names (a port, an address), by name. */
export type ErrorParams = Record<string, string | number>;

/**
 * Titles the server sends, plus those made on this side: `NetworkError` (no answer),
 * `HttpError` (an answer that is not JSON or not the error envelope) and `UnexpectedResponse`
 * (an answer that does not match what the route promises, from callers that check it, such as
 * `@bridgekit/node`'s `exchangeSsoToken`).
 */
export type BridgeErrorTitle = ErrorTitle | 'NetworkError' | 'HttpError' | 'UnexpectedResponse';

export interface BridgeErrorInit {
  /** HTTP status; `0` when no response arrived. */
  status: number;
  title: BridgeErrorTitle;
  detail: string;
  /** The server's `code`; null when the answer had none (made on this side, or another server). */
  code?: string | null | undefined;
  fieldErrors?: FieldErrors | undefined;
  /** Field name to the code of its failure (same keys as `fieldErrors`). */
  fieldCodes?: Record<string, string> | undefined;
  params?: ErrorParams | undefined;
  /** The response's `X-Request-Id`, for support requests. */
  requestId?: string | null | undefined;
  /** Seconds from `Retry-After`, when the response carried one. */
  retryAfter?: number | null | undefined;
}

/**
 * A failed call: the server's `{ error: { title, code, detail, fieldErrors, fieldCodes, params } }`
 * plus the HTTP status and request id. Translate by `code` (see `ErrorCode` in the contract).
 *
 * @example
 * try {
 *   await client.verifyDataSource({ params: { orgId }, body });
 * } catch (error) {
 *   if (error instanceof BridgeError) console.log(error.fieldErrors.password);
 * }
 */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  // Declared only: the constructor sets each one (no field initializers to ship twice).
  declare readonly status: number;
  declare readonly title: BridgeErrorTitle;
  declare readonly detail: string;
  /** The precise reason (`auth_failed`, `admin_required`…); null when the answer had none. */
  declare readonly code: string | null;
  /** Field name (dotted for nested fields) to one message; empty when none. */
  declare readonly fieldErrors: FieldErrors;
  /** Field name to the code of its failure; empty when none. */
  declare readonly fieldCodes: Record<string, string>;
  /** Values the detail names, for translations; empty when none. */
  declare readonly params: ErrorParams;
  declare readonly requestId: string | null;
  declare readonly retryAfter: number | null;

  constructor(init: BridgeErrorInit, options?: { cause?: unknown }) {
    super(`${init.title}: ${init.detail}`, options);
    this.status = init.status;
    this.title = init.title;
    this.detail = init.detail;
    this.code = init.code ?? null;
    this.fieldErrors = init.fieldErrors ?? {};
    this.fieldCodes = init.fieldCodes ?? {};
    this.params = init.params ?? {};
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** `instanceof` that also works across duplicated copies of this package. */
export function isBridgeError(value: unknown): value is BridgeError {
  return (
    value instanceof BridgeError ||
    (value instanceof Error && value.name === 'BridgeError' && 'status' in value)
  );
}
