export { OriginIndex, originAllowed } from './origin-index';
export {
  frameAncestors,
  normalizeOriginPattern,
  type OriginPatternResult,
} from './pattern';
export { createOriginPolicy, type OriginPolicy } from './policy';
export {
  parseStoredOrigins,
  rowAllowsOrigin,
  type StoredOrigins,
  storeOrigins,
} from './stored';
