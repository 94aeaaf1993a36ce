import { DataSource, Member, Organization } from '@bridgekit/contract';

// Every fixture goes through the contract's schemas: a drifting fixture fails at load.

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
  return Organization.parse({
    id: id('org', i + 1),
    name,
    slug: name.toLowerCase().replace(/\s+/g, '-'),
    customAiContext: null,
    onboardingStatus: 'COMPLETED',
    fullEmbedEnabled: i % 3 === 0,
    embedAllowedOrigins: ['https://app.example.com'],
    createdAt: at(i),
    updatedAt: at(i),
  });
});

const avatar = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" fill="#7c3aed"/><circle cx="24" cy="19" r="9" fill="#ede9fe"/><rect x="9" y="32" width="30" height="16" rx="8" fill="#ede9fe"/></svg>',
)}`;

export const ada = Member.parse({
  id: id('mem', 1),
  createdAt: at(61),
  role: 'ADMIN',
  userId: id('usr', 1),
  organizationId: id('org', 1),
  user: {
    id: id('usr', 1),
    fullName: 'Ada Lovelace',
    firstName: 'Ada',
    title: 'Head of Analytics',
    avatarUrl: avatar,
    email: 'ada@acme.example',
    isEmailVerified: true,
    createdAt: at(60),
  },
});

export const grace = Member.parse({
  ...ada,
  id: id('mem', 2),
  role: 'MEMBER',
  userId: id('usr', 2),
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

const baseSource = {
  description: null,
  dialect: 'POSTGRES',
  sslCustomCertificatesEnabled: false,
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
  isDemo: false,
  isServiceWarehouse: false,
  createdAt: at(70),
  updatedAt: at(71),
} as const;

export const warehouse = DataSource.parse({
  ...baseSource,
  id: id('ds', 1),
  displayName: 'Production warehouse',
  databaseName: 'analytics',
  username: 'reporting',
  host: 'db.acme.example',
  port: 5432,
  sslEnabled: true,
  sshEnabled: false,
  sshHost: null,
  sshPort: null,
  sshUsername: null,
  storedSecrets: ['password'],
});

export const tunnelled = DataSource.parse({
  ...baseSource,
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
});

export const ORG_ID = organizations[0]!.id;
