import { createDecipheriv } from 'node:crypto';
import type { ParsedKey } from 'ssh2';
import { ssh2 } from './modules';
import { bcryptPbkdf, KdfError, MAX_KDF_ROUNDS } from './ssh-key-kdf';
import { keyShapeProblem, publicBlobProblem } from './ssh-key-shape';

/** Why a private key could not be used; never carries key or passphrase material. */
export class SshKeyError extends Error {
  constructor(
    readonly code:
      | 'ssh-key-invalid'
      | 'ssh-key-unsupported'
      | 'ssh-key-passphrase'
      | 'ssh-key-rounds'
      | 'ssh-key-aborted',
    message: string,
  ) {
    super(message);
    this.name = 'SshKeyError';
  }
}

const invalid = () => new SshKeyError('ssh-key-invalid', 'The private key could not be read');
const aborted = () => new SshKeyError('ssh-key-aborted', 'Aborted');
const unsupported = () =>
  new SshKeyError('ssh-key-unsupported', 'The private key is of an unsupported type or size');
const tooManyRounds = () =>
  new SshKeyError('ssh-key-rounds', 'The private key asks for too many KDF rounds');
const badPassphrase = () =>
  new SshKeyError('ssh-key-passphrase', 'The private key passphrase is missing or wrong');

const OPENSSH =
  /^-----BEGIN OPENSSH PRIVATE KEY-----\r?\n([\s\S]+?)\r?\n-----END OPENSSH PRIVATE KEY-----$/;
const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

// OpenSSH key ciphers Node can decrypt: [node name, key length, iv length, auth tag length].
const CIPHERS: Record<string, readonly [string, number, number, number]> = {
  'aes128-ctr': ['aes-128-ctr', 16, 16, 0],
  'aes192-ctr': ['aes-192-ctr', 24, 16, 0],
  'aes256-ctr': ['aes-256-ctr', 32, 16, 0],
  'aes128-cbc': ['aes-128-cbc', 16, 16, 0],
  'aes192-cbc': ['aes-192-cbc', 24, 16, 0],
  'aes256-cbc': ['aes-256-cbc', 32, 16, 0],
  'aes128-gcm@openssh.com': ['aes-128-gcm', 16, 12, 16],
  'aes256-gcm@openssh.com': ['aes-256-gcm', 32, 12, 16],
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  u32(): number {
    if (this.pos + 4 > this.buf.length) throw invalid();
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  bytes(): Buffer {
    const len = this.u32();
    if (this.pos + len > this.buf.length) throw invalid();
    const v = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return v;
  }
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const sshString = (b: Buffer) => Buffer.concat([u32(b.length), b]);

interface OpenSshHeader {
  cipherName: string;
  kdfName: string;
  kdfOptions: Buffer;
  publicKeys: Buffer[];
  /** Where the private section starts. */
  pos: number;
}

/** The unencrypted part of an OpenSSH key: names, KDF options, public keys. */
function readOpenSshHeader(data: Buffer): OpenSshHeader {
  if (data.length < MAGIC.length || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw invalid();
  const r = new Reader(data);
  r.pos = MAGIC.length;
  const cipherName = r.bytes().toString('latin1');
  const kdfName = r.bytes().toString('latin1');
  const kdfOptions = r.bytes();
  const keyCount = r.u32();
  if (keyCount !== 1) throw invalid(); // ssh-keygen writes one; ssh2 reads only one
  const publicKeys = [r.bytes()];
  return { cipherName, kdfName, kdfOptions, publicKeys, pos: r.pos };
}

/**
 * What the header alone tells against a key, before any work on it: an unsupported public
 * key (type, RSA size), or more KDF rounds than the cap. Throws the SshKeyError.
 */
function checkOpenSshHeader(header: OpenSshHeader): void {
  const problem = publicBlobProblem(header.publicKeys[0] as Buffer);
  if (problem) throw problem === 'unsupported' ? unsupported() : invalid();
  if (header.kdfName !== 'bcrypt') return;
  const kdf = new Reader(header.kdfOptions);
  kdf.bytes(); // salt
  // The round count is the key's own (untrusted) claim on our CPU: checked before any work.
  if (kdf.u32() > MAX_KDF_ROUNDS) throw tooManyRounds();
}

/**
 * Decrypts an encrypted OpenSSH-format key off the main thread and re-encodes it
 * unencrypted, so ssh2 can parse it without running bcrypt on the event loop.
 */
async function decryptOpenSsh(
  header: OpenSshHeader,
  data: Buffer,
  passphrase: string | undefined,
  signal: AbortSignal,
): Promise<string | undefined> {
  const { cipherName, kdfName, kdfOptions, publicKeys } = header;
  if (cipherName === 'none' && kdfName === 'none') return undefined; // not encrypted
  const cipher = CIPHERS[cipherName];
  if (kdfName !== 'bcrypt' || cipher === undefined) throw invalid();
  const [algorithm, keyLength, ivLength, tagLength] = cipher;

  const kdf = new Reader(kdfOptions);
  const salt = kdf.bytes();
  const rounds = kdf.u32();
  if (!passphrase) throw badPassphrase();
  const r = new Reader(data);
  r.pos = header.pos;
  const encrypted = r.bytes();
  const tag = data.subarray(r.pos, r.pos + tagLength);
  if (tag.length !== tagLength || r.pos + tagLength !== data.length) throw invalid();

  const derived = await bcryptPbkdf(
    { passphrase: Buffer.from(passphrase, 'utf8'), salt, rounds, length: keyLength + ivLength },
    signal,
  ).catch((error: unknown) => {
    throw error instanceof KdfError ? (error.aborted ? aborted() : invalid()) : error;
  });
  let plain: Buffer;
  try {
    const decipher = createDecipheriv(
      algorithm,
      derived.subarray(0, keyLength),
      derived.subarray(keyLength),
    );
    decipher.setAutoPadding(false);
    if (tagLength > 0) (decipher as unknown as { setAuthTag(t: Buffer): void }).setAuthTag(tag);
    plain = Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch {
    throw badPassphrase(); // a wrong key fails the GCM tag or the CBC length check
  }
  // OpenSSH's own check: two equal random "checkint"s start the decrypted block.
  if (plain.length < 8 || plain.readUInt32BE(0) !== plain.readUInt32BE(4)) throw badPassphrase();

  const unencrypted = Buffer.concat([
    MAGIC,
    sshString(Buffer.from('none')),
    sshString(Buffer.from('none')),
    sshString(Buffer.alloc(0)),
    u32(publicKeys.length),
    ...publicKeys.map(sshString),
    sshString(plain),
  ]);
  const body = unencrypted.toString('base64').replace(/.{70}/g, '$&\n');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----`;
}

/** PEM and PPK encryption markers: their KDFs (MD5/SHA-1) are cheap enough to run inline. */
const LEGACY_ENCRYPTED = /^Proc-Type:\s*4,ENCRYPTED|^Encryption:\s*(?!none)/m;
/** Text that claims to be a private key in a format ssh2 reads (PEM, PKCS#8, PuTTY). */
const KEY_ARMOUR = /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|^PuTTY-User-Key-File-/;

/** ssh2's parse of `text`, its type and numbers checked; throws SshKeyError. */
function parseChecked(text: string, passphrase: string | undefined, legacy: boolean): ParsedKey {
  const parsed = ssh2().utils.parseKey(text, passphrase);
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (first instanceof Error || first === undefined) {
    throw legacy && LEGACY_ENCRYPTED.test(text) ? badPassphrase() : invalid();
  }
  if (!first.isPrivateKey()) throw invalid();
  const problem = keyShapeProblem(first);
  if (problem) throw problem === 'unsupported' ? unsupported() : invalid();
  return first;
}

/**
 * Parses a private key for ssh2 and checks its type and size (ssh-key-shape). Throws SshKeyError:
 * `ssh-key-passphrase` when the key is encrypted and the passphrase is missing or wrong,
 * `ssh-key-unsupported` or `ssh-key-rounds` past the limits, `ssh-key-invalid` otherwise.
 */
export async function loadPrivateKey(
  key: string,
  passphrase: string | undefined,
  signal: AbortSignal,
): Promise<ParsedKey> {
  let text = key.trim();
  let pass = passphrase || undefined;
  const openssh = OPENSSH.exec(text);
  if (openssh?.[1]) {
    const data = Buffer.from(openssh[1], 'base64');
    const header = readOpenSshHeader(data);
    checkOpenSshHeader(header);
    const decrypted = await decryptOpenSsh(header, data, pass, signal);
    if (decrypted !== undefined) {
      text = decrypted;
      pass = undefined;
    }
  }
  return parseChecked(text, pass, !openssh);
}

/**
 * The checks a key can have when it is received, cheaply and on the event loop: a key in a
 * format ssh2 reads must parse and pass the type, size and KDF-rounds limits. An encrypted key
 * is checked as far as its unencrypted parts go (the OpenSSH header names its public key); the
 * rest, and text in no key format, is checked when the key is used. Undefined when accepted.
 */
export function privateKeyInputProblem(
  key: string,
  passphrase: string | undefined,
): SshKeyError | undefined {
  const text = key.trim();
  try {
    const openssh = OPENSSH.exec(text);
    if (openssh?.[1]) {
      const header = readOpenSshHeader(Buffer.from(openssh[1], 'base64'));
      checkOpenSshHeader(header);
      if (header.cipherName === 'none') parseChecked(text, undefined, false);
      return undefined;
    }
    if (!KEY_ARMOUR.test(text)) return undefined;
    const legacyEncrypted = LEGACY_ENCRYPTED.test(text);
    if (legacyEncrypted && !passphrase) return undefined; // a stored passphrase may apply
    parseChecked(text, passphrase || undefined, true);
    return undefined;
  } catch (error) {
    if (!(error instanceof SshKeyError)) throw error;
    // A wrong passphrase given with the key may be corrected by another PATCH: checked at use.
    return error.code === 'ssh-key-passphrase' ? undefined : error;
  }
}
