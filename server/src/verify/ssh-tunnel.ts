import { type AddressInfo, createServer, Socket } from 'node:net';
import type {
  AgentAuthMethod,
  AuthMethod,
  Client,
  ClientChannel,
  ParsedKey,
  PasswordAuthMethod,
} from 'ssh2';
import { ssh2 } from './modules';
import { type CheckedAddress, tryNextAddress } from './network-policy';
import type { Scope } from './scope';
import { SshKeyError } from './ssh-key';
import { workerSigner } from './ssh-signer';

export interface SshTunnelOptions {
  /** The SSH server, already resolved and checked by the network policy. */
  ssh: CheckedAddress;
  sshPort: number;
  username: string;
  password?: string | undefined;
  privateKey?: ParsedKey | undefined;
  /** Where the SSH server should connect: resolved by the SSH server, not by us. */
  targetHost: string;
  targetPort: number;
}

export type SshFailure =
  | 'ssh-auth'
  | 'ssh-socket'
  | 'ssh-handshake'
  | 'ssh-closed'
  | 'ssh-timeout'
  | 'ssh-forward';

/** A tunnel failure with stable codes: `failure`, the socket's Node `code`, the channel-open `reason`. */
export class SshTunnelError extends Error {
  constructor(
    readonly failure: SshFailure,
    readonly socketCode?: string | undefined,
    readonly openFailureReason?: number | undefined,
  ) {
    super(`SSH tunnel failed (${failure})`);
    this.name = 'SshTunnelError';
  }
}

/** ssh2 errors carry `level` (and `code` for socket errors, `reason` for channel opens). */
function fromSsh2(err: Error & { level?: string; code?: unknown }): SshTunnelError {
  const code = typeof err.code === 'string' ? err.code : undefined;
  switch (err.level) {
    case 'client-authentication':
      return new SshTunnelError('ssh-auth');
    case 'client-socket':
      return new SshTunnelError('ssh-socket', code);
    case 'client-timeout':
      return new SshTunnelError('ssh-timeout');
    default:
      return new SshTunnelError('ssh-handshake', code);
  }
}

const noop = () => {};

/**
 * The key goes in as an agent whose signatures are made in a worker (ssh-signer), not as a
 * `publickey` method, which ssh2 signs synchronously on the event loop.
 */
function authMethods(scope: Scope, options: SshTunnelOptions): AuthMethod[] {
  const { username, privateKey, password } = options;
  const methods: Array<AgentAuthMethod | PasswordAuthMethod> = [];
  if (privateKey) {
    methods.push({ type: 'agent', username, agent: workerSigner(privateKey, scope.signal) });
  }
  if (password) methods.push({ type: 'password', username, password });
  return methods;
}

/** A TCP connection to the first address that takes one, closed with the scope. */
async function connectFirst(scope: Scope, addresses: string[], port: number): Promise<Socket> {
  let failure: unknown;
  for (const address of addresses) {
    scope.throwIfClosed();
    const socket = new Socket();
    scope.defer(() => socket.destroy());
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        const onClose = () => reject(new SshTunnelError('ssh-closed'));
        socket.once('error', onError).once('close', onClose);
        socket.connect({ host: address, port }, () => {
          socket.off('error', onError).off('close', onClose);
          resolve();
        });
      });
      return socket;
    } catch (error) {
      socket.destroy();
      failure = error;
      if (!tryNextAddress(error)) break;
    }
  }
  if (failure instanceof SshTunnelError) throw failure;
  const code = (failure as { code?: unknown } | null)?.code;
  throw new SshTunnelError('ssh-socket', typeof code === 'string' ? code : undefined);
}

/** The SSH handshake and authentication over `socket`. */
function handshake(scope: Scope, client: Client, socket: Socket, options: SshTunnelOptions) {
  return new Promise<void>((resolve, reject) => {
    const settle = (err?: SshTunnelError | SshKeyError) => {
      client.off('ready', onReady).off('error', onError).off('close', onClose);
      scope.signal.removeEventListener('abort', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => settle();
    // The agent's `level`: the key could not sign (a deadline that stopped it wins the race).
    const onError = (err: Error & { level?: string }) =>
      settle(
        err.level === 'agent'
          ? new SshKeyError('ssh-key-invalid', 'The private key could not sign')
          : fromSsh2(err),
      );
    const onClose = () => settle(new SshTunnelError('ssh-closed'));
    client.once('ready', onReady).once('error', onError).once('close', onClose);
    scope.signal.addEventListener('abort', onClose, { once: true });
    client.connect({
      sock: socket,
      username: options.username,
      // Explicit methods: ssh2's `privateKey` option takes only unparsed keys.
      authHandler: authMethods(scope, options),
      readyTimeout: 0, // the verify deadline covers the handshake
      keepaliveInterval: 0,
      // Host keys are accepted without pinning (like first use): a verify has no stored
      // fingerprint to compare with, and credentials go to the server the user named.
    });
  });
}

/** One direct-tcpip channel to the target, closed with the scope. */
function forwardChannel(scope: Scope, client: Client, options: SshTunnelOptions) {
  return new Promise<ClientChannel>((resolve, reject) => {
    const onAbort = () => reject(new SshTunnelError('ssh-closed'));
    scope.signal.addEventListener('abort', onAbort, { once: true });
    client.forwardOut('127.0.0.1', 0, options.targetHost, options.targetPort, (err, stream) => {
      scope.signal.removeEventListener('abort', onAbort);
      if (err) {
        const reason = (err as Error & { reason?: unknown }).reason;
        reject(
          new SshTunnelError(
            'ssh-forward',
            undefined,
            typeof reason === 'number' ? reason : undefined,
          ),
        );
        return;
      }
      scope.defer(() => stream.destroy());
      resolve(stream);
    });
  });
}

/** Serves `channel` on 127.0.0.1:<ephemeral> to exactly one local connection; the port. */
async function serveOnce(scope: Scope, channel: ClientChannel): Promise<number> {
  const server = createServer();
  scope.defer(() => server.close());
  server.on('error', noop);
  let served = false;
  server.on('connection', (local: Socket) => {
    if (served) return void local.destroy();
    // One connection is all a verify makes: stop listening so nothing else can take it.
    served = true;
    server.close();
    scope.defer(() => local.destroy());
    local.on('error', noop);
    local.pipe(channel).pipe(local);
    local.on('close', () => channel.destroy());
    channel.on('close', () => local.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      // listen() finishes asynchronously: a scope closed meanwhile already ran its closer.
      if (scope.closed) {
        server.close();
        reject(new SshTunnelError('ssh-closed'));
      } else resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Connects to the SSH server, opens one forward channel to the target (so an
 * unreachable target fails here, not as a vague pg disconnect), and serves it on
 * 127.0.0.1:<ephemeral> for exactly one local connection. Everything it opens is
 * closed when `scope` closes.
 */
export async function openSshTunnel(scope: Scope, options: SshTunnelOptions): Promise<number> {
  scope.throwIfClosed();
  const socket = await connectFirst(scope, options.ssh.addresses, options.sshPort);
  const client = new (ssh2().Client)();
  client.on('error', noop); // errors after the handshake surface through the channel
  scope.defer(() => client.end()); // polite SSH_MSG_DISCONNECT before the socket closes
  await handshake(scope, client, socket, options);
  const channel = await forwardChannel(scope, client, options);
  channel.on('error', noop);
  return serveOnce(scope, channel);
}
