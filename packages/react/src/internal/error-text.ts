import { isBridgeError } from '@bridgekit/client';
import type { Messages } from '../provider/messages';

/** What to tell the user about a failed call. */
export function errorText(error: unknown, messages: Messages, fallback: string): string {
  if (!isBridgeError(error)) return fallback;
  if (error.title === 'NetworkError') return messages.networkError;
  return error.detail || fallback;
}

export const isNotFound = (error: unknown) => isBridgeError(error) && error.status === 404;
