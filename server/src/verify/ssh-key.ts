import { createDecipheriv } from 'node:crypto';
import type { ParsedKey } from 'ssh2';
import { ssh2 } from './modules';
import { bcryptPbkdf, KdfError, MAX_KDF_ROUNDS } from './ssh-key-kdf';

/** Why a private key could not be used; never carries key or passphrase material. */
export class SshKeyError extends Error {
  constructor(
    readonly code: 'ssh-key-invalid' | 'ssh-key-passphrase' | 'ssh-key-rounds' | 'ssh-key-aborted',
    message: string,
  ) {
    super(message);
    this.name = 'SshKeyError';
  }
}

const invalid = () => new SshKeyError('ssh-key-invalid', 'The private key could not be read');
const aborted = () => new SshKeyError('ssh-key-aborted', 'Aborted');
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

/**
 * Decrypts an encrypted OpenSSH-format key off the main thread and re-encodes it
 * unencrypted, so ssh2 can parse it without running bcrypt on the event loop.
 */
async function decryptOpenSsh(
  data: Buffer,
  passphrase: string | undefined,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (data.length < MAGIC.length || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw invalid();
  const r = new Reader(data);
  r.pos = MAGIC.length;
  const cipherName = r.bytes().toString('latin1');
  const kdfName = r.bytes().toString('latin1');
  const kdfOptions = r.bytes();
  if (cipherName === 'none' && kdfName === 'none') return undefined; // not encrypted
  const cipher = CIPHERS[cipherName];
  if (kdfName !== 'bcrypt' || cipher === undefined) throw invalid();
  const [algorithm, keyLength, ivLength, tagLength] = cipher;

  const kdf = new Reader(kdfOptions);
  const salt = kdf.bytes();
  const rounds = kdf.u32();
  // The round count is the key's own (untrusted) claim on our CPU: checked before any work.
  if (rounds > MAX_KDF_ROUNDS) {
    throw new SshKeyError('ssh-key-rounds', 'The private key asks for too many KDF rounds');
  }
  if (!passphrase) throw badPassphrase();
  const keyCount = r.u32();
  const publicKeys: Buffer[] = [];
  for (let i = 0; i < keyCount; i++) publicKeys.push(r.bytes());
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
    u32(keyCount),
    ...publicKeys.map(sshString),
    sshString(plain),
  ]);
  const body = unencrypted.toString('base64').replace(/.{70}/g, '$&\n');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----`;
}

/** PEM and PPK encryption markers: their KDFs (MD5/SHA-1) are cheap enough to run inline. */
const LEGACY_ENCRYPTED = /^Proc-Type:\s*4,ENCRYPTED|^Encryption:\s*(?!none)/m;

/**
 * Parses a private key for ssh2. Throws SshKeyError `ssh-key-passphrase` when the key
 * is encrypted and the passphrase is missing or wrong, `ssh-key-invalid` otherwise.
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
    const decrypted = await decryptOpenSsh(Buffer.from(openssh[1], 'base64'), pass, signal);
    if (decrypted !== undefined) {
      text = decrypted;
      pass = undefined;
    }
  }
  const parsed = ssh2().utils.parseKey(text, pass);
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (first instanceof Error || first === undefined) {
    throw !openssh && LEGACY_ENCRYPTED.test(text) ? badPassphrase() : invalid();
  }
  if (!first.isPrivateKey()) throw invalid();
  return first;
}
