/**
 * A Map that holds at most `max` entries: adding a new key to a full map drops the oldest
 * (first inserted) one. Replacing an existing key keeps its place.
 * @example const names = new BoundedMap<string, string>(1000);
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly max: number;

  constructor(max: number) {
    super();
    if (!Number.isInteger(max) || max <= 0) throw new Error('max must be a positive integer');
    this.max = max;
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}
