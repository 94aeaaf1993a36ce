import { ApiError } from '../api-error';
import { codesOf } from './failure-codes';
import { sshKeyFailure } from './ssh-failures';
import { privateKeyInputProblem } from './ssh-key';

interface KeyFields {
  sshPrivateKey?: string | null | undefined;
  sshPrivateKeyPassphrase?: string | null | undefined;
}

/**
 * Refuses, with a 400 on `sshPrivateKey`, a received key that can't be used: unreadable in its
 * own format, of an unsupported type or size, or asking for too many KDF rounds. Cheap enough for
 * the event loop (no decryption, no signature); what it can't see is checked again at use.
 */
export function checkSshKeyInput(body: KeyFields): void {
  if (typeof body.sshPrivateKey !== 'string') return;
  const passphrase = body.sshPrivateKeyPassphrase ?? undefined;
  const problem = privateKeyInputProblem(body.sshPrivateKey, passphrase);
  if (!problem) return;
  const failure = sshKeyFailure(problem);
  // A 400 is a validation failure; the key's own reason is its field code (a verify's 422
  // carries the same reason as its code).
  const { fields } = codesOf(failure);
  throw new ApiError('ValidationError', failure.detail, {
    code: 'validation_failed',
    fields,
    ...(failure.params ? { params: failure.params } : {}),
  });
}
