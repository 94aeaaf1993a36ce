/**
 * An `organizations` row for store tests that insert rows directly (no API, no sealing): a
 * placeholder sealed secret, onboarding started, full embed off, no origins.
 */
export function organizationRow(id: string, name = id, at = new Date().toISOString()) {
  return {
    id,
    name,
    slug: id.toLowerCase(),
    customAiContext: null,
    onboardingStatus: 'STARTED',
    fullEmbedEnabled: 0,
    embedAllowedOrigins: '[]',
    jwtSecretSealed: 'sealed',
    createdAt: at,
    updatedAt: at,
  };
}
