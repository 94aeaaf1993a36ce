import type { Response } from 'express';
import { ApiError } from '../api-error';
import type { RateLimitVerdict } from '../rate-limit';

/**
 * Says a limiter's verdict on the response: the RateLimit-* headers (IETF draft
 * ratelimit-headers) on every counted request, and past the limit a 429 with Retry-After.
 */
export function sendRateLimit(verdict: RateLimitVerdict, res: Response): void {
  res.setHeader('RateLimit-Limit', String(verdict.limit));
  res.setHeader('RateLimit-Remaining', String(verdict.remaining));
  res.setHeader('RateLimit-Reset', String(verdict.resetSeconds));
  if (!verdict.over) return;
  const retryAfter = verdict.retryAfterSeconds;
  throw new ApiError('TooManyRequests', `Rate limit exceeded; retry in ${retryAfter} s`, {
    code: 'rate_limited',
    params: { retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** `sendRateLimit` bound to one response, for code that counts hits without knowing HTTP. */
export const rateLimitOn =
  (res: Response) =>
  (verdict: RateLimitVerdict): void =>
    sendRateLimit(verdict, res);
