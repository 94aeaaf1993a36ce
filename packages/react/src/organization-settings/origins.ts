import { checkOriginPattern } from '@bridgekit/contract/origin-pattern';
import type { OrganizationSettingsMessages } from './organization-settings-messages';

/** One row of the origins editor; `key` stays with the row when others are removed. */
export interface OriginEntry {
  key: number;
  value: string;
}

/**
 * Each entry's error under the bridge's rule (the shared `checkOriginPattern`), by key; an
 * entry that normalizes to an earlier one's origin is a duplicate. Empty rows are left out.
 */
export function originErrors(
  entries: readonly OriginEntry[],
  messages: Pick<OrganizationSettingsMessages, 'originErrors' | 'originDuplicate'>,
): Record<number, string> {
  const errors: Record<number, string> = {};
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.value.trim() === '') continue;
    const result = checkOriginPattern(entry.value.trim());
    if (!result.ok) errors[entry.key] = messages.originErrors[result.error];
    else if (seen.has(result.value)) errors[entry.key] = messages.originDuplicate;
    else seen.add(result.value);
  }
  return errors;
}

/** The entries as the bridge receives them: trimmed, without empty rows. */
export const originsToSend = (entries: readonly OriginEntry[]) =>
  entries.map((entry) => entry.value.trim()).filter((value) => value !== '');
