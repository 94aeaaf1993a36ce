/**
 * `{ ...a, ...b }` as a call, so that `/* @__PURE__ *\/ merge(…)` lets bundlers drop a message
 * set nobody uses (an object spread may run getters, so they must keep it).
 */
export const merge = <A extends object, B extends object>(a: A, b: B): A & B => ({ ...a, ...b });
