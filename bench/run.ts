// `npm run bench [section ...]`: prints a markdown report. Sections: orgs, verify, sso, hostile,
// signing, pooler, start, cli, lifecycle, growth, preflight, webhooks.
const sections: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  orgs: () => import('./orgs'),
  verify: () => import('./verify'),
  sso: () => import('./sso'),
  hostile: () => import('./hostile'),
  signing: () => import('./ssh-signing'),
  pooler: () => import('./pooler'),
  start: () => import('./start'),
  cli: () => import('./cli'),
  lifecycle: () => import('./lifecycle'),
  growth: () => import('./growth'),
  preflight: () => import('./preflight'),
  webhooks: () => import('./webhooks'),
};

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(sections);
console.log(`# Bridgekit benchmarks\n\nNode ${process.version}, ${new Date().toISOString()}`);
for (const name of names) {
  const load = sections[name];
  if (!load)
    throw new Error(`unknown bench section ${name}; known: ${Object.keys(sections).join(', ')}`);
  await (await load()).run();
}

export {};
