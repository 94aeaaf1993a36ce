export type BuildTarget = 'embed' | 'server';
/**
 * Builds `target` unless its outputs exist and were built from its inputs as they are now; true
 * when it built. `onBuild` is called just before a build starts.
 */
export function ensureBuilt(
  target: BuildTarget,
  options?: { onBuild?: () => void },
): Promise<boolean>;
/** The content hash of a target's inputs. */
export function inputsHash(target: BuildTarget): string;
/** Each target's inputs and outputs, paths relative to the repository root. */
export const TARGETS: Record<BuildTarget, { inputs: string[]; outputs: string[]; stamp: string }>;
