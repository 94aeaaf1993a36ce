import { type ErrorTitle, type FieldErrors, statusOf } from '@bridgekit/contract';

/** The one error type of the bridge: a title from the contract, a safe detail, optional fieldErrors. */
export class ApiError extends Error {
  readonly title: ErrorTitle;
  readonly status: number;
  readonly fieldErrors: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(
    title: ErrorTitle,
    detail: string,
    options: { fieldErrors?: FieldErrors; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'ApiError';
    this.title = title;
    this.status = statusOf[title];
    this.fieldErrors = options.fieldErrors;
    this.headers = options.headers ?? {};
  }

  toBody() {
    return {
      error: {
        title: this.title,
        detail: this.message,
        ...(this.fieldErrors ? { fieldErrors: this.fieldErrors } : {}),
      },
    };
  }
}

export const notFound = (what = 'Resource') => new ApiError('NotFound', `${what} not found`);
export const forbidden = (detail = 'Your role does not allow this action') =>
  new ApiError('Forbidden', detail);
