import {
  DataSource,
  Member,
  Organization,
  type Role,
  SessionInfo,
  User,
} from '@bridgekit/contract';

// Records shared by tests and stories. Each goes through the contract's schema, so a fixture
// that drifts from the contract fails where it is made. This file imports nothing but the
// contract: Storybook bundles it for the browser.

const CREATED = '2025-01-01T00:00:00.000Z';

/** An organization; any field can be overridden. */
export function organization(overrides: Partial<Organization> = {}): Organization {
  return Organization.parse({
    id: 'org_0000000001',
    name: 'Acme',
    slug: 'acme',
    customAiContext: null,
    onboardingStatus: 'COMPLETED',
    fullEmbedEnabled: false,
    embedAllowedOrigins: [],
    previousJwtSecretExpiresAt: null,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  });
}

/** A user; any field can be overridden. */
export function user(overrides: Partial<User> = {}): User {
  return User.parse({
    id: 'usr_0000000001',
    fullName: 'Ada Lovelace',
    firstName: 'Ada',
    title: null,
    avatarUrl: null,
    email: 'ada@example.com',
    isEmailVerified: true,
    createdAt: CREATED,
    ...overrides,
  });
}

export type MemberOverrides = Partial<Omit<Member, 'user'>> & { user?: Partial<User> };

/** A member of `org_0000000001`; `user` overrides go to `user()`, and `userId` follows its id. */
export function member(overrides: MemberOverrides = {}): Member {
  const { user: userOverrides, ...rest } = overrides;
  const withUser = user(userOverrides);
  return Member.parse({
    id: 'mem_0000000001',
    createdAt: CREATED,
    role: 'ADMIN',
    userId: withUser.id,
    organizationId: 'org_0000000001',
    ...rest,
    user: withUser,
  });
}

/** What `GET /api/sso/session` answers for a kit session of `member` in `org`, with `role`. */
export function sessionInfo(org: Organization, role: Role, who: Member = member()): SessionInfo {
  return SessionInfo.parse({
    kind: 'kit',
    signedInAt: CREATED,
    expiresAt: '2099-01-01T00:15:00.000Z',
    absoluteExpiresAt: '2099-01-01T12:00:00.000Z',
    organization: org,
    member: { ...who, role, organizationId: org.id },
  });
}

/** A PostgreSQL data source with a stored password, never synced; any field can be overridden. */
export function dataSource(overrides: Partial<DataSource> = {}): DataSource {
  return DataSource.parse({
    id: 'ds_0000000001',
    displayName: 'Warehouse',
    description: null,
    dialect: 'POSTGRES',
    databaseName: 'analytics',
    username: 'reader',
    host: 'db.example.com',
    port: 5432,
    sslEnabled: true,
    sslCustomCertificatesEnabled: false,
    sshEnabled: false,
    sshHost: null,
    sshPort: null,
    sshUsername: null,
    bigQueryProjectId: null,
    spannerInstanceId: null,
    snowflakeAccountId: null,
    snowflakeWarehouse: null,
    snowflakeRole: null,
    lastSuccessfulSyncAt: null,
    lastSyncStatus: 'PENDING',
    lastSyncAttemptAt: null,
    hasCompletedFirstSync: false,
    syncErrorMessage: null,
    lastHealthyAt: null,
    lastHealthStatus: null,
    lastHealthCheckAttemptAt: null,
    healthErrorMessage: null,
    isDemo: false,
    isServiceWarehouse: false,
    storedSecrets: ['password'],
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  });
}

// The stories' world (the embedded app's tests use it too): 120 organizations, two members of
// the first, two of its data sources.

const at = (day: number) => new Date(Date.UTC(2025, 0, 1 + day, 9, 30)).toISOString();
const id = (prefix: string, n: number) => `${prefix}_${String(n).padStart(12, '0')}`;

const FIRST = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Hooli',
  'Stark',
  'Wayne',
  'Wonka',
  'Tyrell',
  'Cyberdyne',
  'Soylent',
  'Vandelay',
];
const SECOND = [
  'Analytics',
  'Labs',
  'Logistics',
  'Health',
  'Retail',
  'Energy',
  'Media',
  'Finance',
  'Robotics',
  'Foods',
];

/** 120 organizations in id order, as the bridge would page them. */
export const organizations: Organization[] = Array.from({ length: 120 }, (_, i) => {
  const name = `${FIRST[i % FIRST.length]} ${SECOND[Math.floor(i / FIRST.length) % SECOND.length]}`;
  return organization({
    id: id('org', i + 1),
    name,
    slug: name.toLowerCase().replace(/\s+/g, '-'),
    fullEmbedEnabled: i % 3 === 0,
    embedAllowedOrigins: ['https://app.example.com'],
    createdAt: at(i),
    updatedAt: at(i),
  });
});

export const ORG_ID = organizations[0]!.id;

const avatar = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" fill="#7c3aed"/><circle cx="24" cy="19" r="9" fill="#ede9fe"/><rect x="9" y="32" width="30" height="16" rx="8" fill="#ede9fe"/></svg>',
)}`;

export const ada = member({
  id: id('mem', 1),
  createdAt: at(61),
  organizationId: ORG_ID,
  user: {
    id: id('usr', 1),
    title: 'Head of Analytics',
    avatarUrl: avatar,
    email: 'ada@acme.example',
    createdAt: at(60),
  },
});

/** Long name and email, a broken avatar, not verified. */
export const grace = member({
  id: id('mem', 2),
  createdAt: at(61),
  role: 'MEMBER',
  organizationId: ORG_ID,
  user: {
    ...ada.user,
    id: id('usr', 2),
    fullName: 'Grace Brewster Murray Hopper-Featherstonehaugh',
    firstName: 'Grace',
    title: null,
    avatarUrl: 'data:image/png;base64,broken',
    email: 'grace.brewster.murray.hopper-featherstonehaugh@a-very-long-domain.example',
    isEmailVerified: false,
  },
});

export const warehouse = dataSource({
  id: id('ds', 1),
  displayName: 'Production warehouse',
  username: 'reporting',
  host: 'db.acme.example',
  createdAt: at(70),
  updatedAt: at(71),
});

export const tunnelled = dataSource({
  id: id('ds', 2),
  displayName: 'Replica behind a bastion',
  databaseName: null,
  username: 'replica',
  host: '10.0.4.12',
  port: 5433,
  sslEnabled: false,
  sshEnabled: true,
  sshHost: 'bastion.acme.example',
  sshPort: 22,
  sshUsername: 'tunnel',
  storedSecrets: ['password', 'sshPrivateKey', 'sshPrivateKeyPassphrase'],
  createdAt: at(70),
  updatedAt: at(71),
});
