/** A second bound on a BoundedMap: the sum of `weigh(value)` over its entries. */
export interface WeightBound<V> {
  maxWeight: number;
  weigh: (value: V) => number;
}

/**
 * A Map that holds at most `max` entries: adding a new key to a full map drops the oldest
 * (first inserted) one. Replacing an existing key keeps its place. With a `weight` bound it
 * also drops the oldest entries until the new value fits under `maxWeight` (a value heavier
 * than that alone is still kept, alone).
 * @example const names = new BoundedMap<string, string>(1000);
 * @example const pages = new BoundedMap<string, Row[]>(2048, { maxWeight: 4096, weigh: (rows) => rows.length });
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly max: number;
  readonly #bound: WeightBound<V> | undefined;
  #weight = 0;

  constructor(max: number, weight?: WeightBound<V>) {
    super();
    if (!Number.isInteger(max) || max <= 0) throw new Error('max must be a positive integer');
    this.max = max;
    this.#bound = weight;
  }

  /** The sum of the entries' weights (0 without a weight bound). */
  get weight(): number {
    return this.#weight;
  }

  override set(key: K, value: V): this {
    if (!this.#bound) {
      if (this.size >= this.max && !this.has(key)) this.delete(this.keys().next().value as K);
      return super.set(key, value);
    }
    const { maxWeight, weigh } = this.#bound;
    if (this.has(key)) this.#weight -= weigh(super.get(key) as V);
    else if (this.size >= this.max) this.delete(this.keys().next().value as K);
    const adding = weigh(value);
    for (const oldest of this.keys()) {
      if (this.#weight + adding <= maxWeight) break;
      if (oldest !== key) this.delete(oldest);
    }
    this.#weight += adding;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (this.#bound && this.has(key)) this.#weight -= this.#bound.weigh(super.get(key) as V);
    return super.delete(key);
  }

  override clear(): void {
    this.#weight = 0;
    super.clear();
  }
}
