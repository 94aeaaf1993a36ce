import { type BridgeError, isBridgeError } from '@bridgekit/client';
import type { ErrorCode, FieldCode } from '@bridgekit/contract';
import type { FailureText, ProviderMessages } from '../provider/messages';

const say = (text: FailureText, params: BridgeError['params']) =>
  typeof text === 'function' ? text(params) : text;

/** What to tell the user about a failed call: its translation by code, else the bridge's text. */
export function errorText(error: unknown, messages: ProviderMessages, fallback: string): string {
  if (!isBridgeError(error)) return fallback;
  if (error.title === 'NetworkError') return messages.networkError;
  const text = error.code ? messages.errorCodes[error.code as ErrorCode] : undefined;
  if (text) return say(text, error.params);
  return error.detail || fallback;
}

/** Each refused field's message: its translation by field code, else the bridge's message. */
export function fieldTexts(error: BridgeError, messages: ProviderMessages): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(error.fieldErrors)) {
    const code = error.fieldCodes[field] as FieldCode | undefined;
    const text = code ? messages.fieldCodes[code] : undefined;
    out[field] = text ? say(text, error.params) : message;
  }
  return out;
}

export const isNotFound = (error: unknown) => isBridgeError(error) && error.status === 404;

/** A write refused because the caller is not an ADMIN of the organization. */
export const isAdminRequired = (error: unknown) =>
  isBridgeError(error) && error.code === 'admin_required';
