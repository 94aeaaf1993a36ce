import { Role } from '@bridgekit/contract';
import type { Deps } from '../deps';
import { rotateJwtSecret } from '../domain/jwt-secret';
import { removeMember, setMemberRole } from '../domain/member-changes';
import { addMember } from '../domain/members';
import { findMemberByEmail } from '../store/members';
import { findOrganizationById } from '../store/organizations';
import {
  type Command,
  type CommandInput,
  requireEmail,
  requireOption,
  UsageError,
} from './command';

function requireRole(value: unknown): Role {
  const role = Role.safeParse(value);
  if (!role.success) throw new UsageError('--role must be ADMIN or MEMBER');
  return role.data;
}

async function requireOrg(deps: Deps, orgId: string) {
  if (!(await findOrganizationById(deps.store.db, orgId))) {
    throw new UsageError(`no organization with id ${orgId}`);
  }
}

/** The membership of `--email` in `--org`; a usage error when either is unknown. */
async function requireMember({ values, getDeps }: CommandInput) {
  const email = requireEmail(values.email);
  const orgId = requireOption(values, 'org');
  const deps = await getDeps();
  await requireOrg(deps, orgId);
  const member = await findMemberByEmail(deps.store.db, orgId, email);
  if (!member) throw new UsageError(`${email} is not a member of ${orgId}`);
  return { deps, orgId, member };
}

async function addMemberCommand({ values, out, getDeps }: CommandInput) {
  const email = requireEmail(values.email);
  const orgId = requireOption(values, 'org');
  const role = requireRole(values.role);
  const deps = await getDeps();
  await requireOrg(deps, orgId);
  const member = await addMember(deps, orgId, { email, role });
  out(`${member.id}\t${member.userEmail}\t${member.role}`);
  return deps;
}

async function setRoleCommand(input: CommandInput) {
  const role = requireRole(input.values.role);
  const { deps, orgId, member } = await requireMember(input);
  // The same rule as the API: the last ADMIN stays (the command fails with the API's message).
  const changed = await setMemberRole(deps, orgId, member.id, role);
  input.out(`${changed.id}\t${changed.userEmail}\t${changed.role}`);
  return deps;
}

async function removeCommand(input: CommandInput) {
  const { deps, orgId, member } = await requireMember(input);
  const removed = await removeMember(deps, orgId, member.id);
  input.out(`removed ${removed.id}\t${removed.userEmail}`);
  return deps;
}

async function rotateSecretCommand({ values, out, getDeps }: CommandInput) {
  const orgId = requireOption(values, 'org');
  const deps = await getDeps();
  await requireOrg(deps, orgId);
  const endSessions = values['end-sessions'] === true;
  const { secret } = await rotateJwtSecret(deps, orgId, { endSessions });
  out(secret);
  return deps;
}

const MEMBER_OPTIONS = {
  org: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
} as const;

/** Commands on organizations and their members; the same rules as the API. */
export const ORG_COMMANDS: Command[] = [
  {
    name: 'members add',
    usage: '  members add --org ORG_ID --email E --role ADMIN|MEMBER',
    options: MEMBER_OPTIONS,
    run: addMemberCommand,
  },
  {
    name: 'members set-role',
    usage: `  members set-role --org ORG_ID --email E --role ADMIN|MEMBER
                                   change a role (the last ADMIN can't be demoted)`,
    options: MEMBER_OPTIONS,
    run: setRoleCommand,
  },
  {
    name: 'members remove',
    usage: `  members remove --org ORG_ID --email E
                                   remove a member; the user stays (not the last ADMIN)`,
    options: { org: MEMBER_OPTIONS.org, email: MEMBER_OPTIONS.email },
    run: removeCommand,
  },
  {
    name: 'orgs rotate-secret',
    usage: `  orgs rotate-secret --org ORG_ID [--end-sessions]
                                   new jwtSecret; prints only the new secret (the old one
                                   verifies for BRIDGE_JWT_SECRET_GRACE_HOURS); --end-sessions
                                   also ends every session signed in until now`,
    options: { org: MEMBER_OPTIONS.org, 'end-sessions': { type: 'boolean' } },
    run: rotateSecretCommand,
  },
];
