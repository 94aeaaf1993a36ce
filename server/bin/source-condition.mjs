// Module resolve hook: our workspace packages resolve to src/ through their `bridgekit-source`
// export condition (what `node --conditions=bridgekit-source` does), so the CLI needs no build.
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, {
    ...context,
    conditions: [...context.conditions, 'bridgekit-source'],
  });
}
