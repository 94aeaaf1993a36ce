export type BuildTarget = 'embed' | 'server';
/** Builds `target` unless its outputs exist and were built from its inputs as they are now; true when it built. */
export function ensureBuilt(target: BuildTarget): Promise<boolean>;
/** The content hash of a target's inputs. */
export function inputsHash(target: BuildTarget): string;
