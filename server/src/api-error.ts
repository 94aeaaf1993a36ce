import {
  codeOfTitle,
  type ErrorCode,
  type ErrorParams,
  type ErrorTitle,
  type FieldCode,
  type FieldCodes,
  type FieldErrors,
  statusOf,
} from '@bridgekit/contract';

/** One refused field: its code and its English message. */
export interface FieldFailure {
  code: FieldCode;
  message: string;
}

export interface ApiErrorOptions {
  /** The precise reason; without it, the title's generic code (`codeOfTitle`). */
  code?: ErrorCode;
  /** Refused fields by name (dotted path for nested fields). */
  fields?: Record<string, FieldFailure>;
  /** Values the detail mentions, for translations. */
  params?: ErrorParams;
  cause?: unknown;
  headers?: Record<string, string>;
}

/**
 * The one error type of the bridge: a title from the contract, a stable code, a safe detail,
 * and the refused fields, each with a code and a message.
 */
export class ApiError extends Error {
  readonly title: ErrorTitle;
  readonly code: ErrorCode;
  readonly status: number;
  readonly fieldErrors: FieldErrors | undefined;
  readonly fieldCodes: FieldCodes | undefined;
  readonly params: ErrorParams | undefined;
  readonly headers: Record<string, string>;

  constructor(title: ErrorTitle, detail: string, options: ApiErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.name = 'ApiError';
    this.title = title;
    this.code = options.code ?? codeOfTitle[title];
    this.status = statusOf[title];
    this.params = options.params;
    this.headers = options.headers ?? {};
    if (options.fields) {
      const fieldErrors: FieldErrors = {};
      const fieldCodes: FieldCodes = {};
      // Defined rather than assigned: a field named `__proto__` must get its own entry.
      for (const [field, { code, message }] of Object.entries(options.fields)) {
        Object.defineProperty(fieldErrors, field, { value: message, enumerable: true });
        Object.defineProperty(fieldCodes, field, { value: code, enumerable: true });
      }
      this.fieldErrors = fieldErrors;
      this.fieldCodes = fieldCodes;
    }
  }

  toBody() {
    return {
      error: {
        title: this.title,
        code: this.code,
        detail: this.message,
        ...(this.fieldErrors ? { fieldErrors: this.fieldErrors, fieldCodes: this.fieldCodes } : {}),
        ...(this.params ? { params: this.params } : {}),
      },
    };
  }
}

export const notFound = (what = 'Resource', code: ErrorCode = 'not_found') =>
  new ApiError('NotFound', `${what} not found`, { code });
export const forbidden = (detail: string, code: ErrorCode) =>
  new ApiError('Forbidden', detail, { code });
