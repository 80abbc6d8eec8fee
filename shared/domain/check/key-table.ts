/** FNV-1a over the UTF-16 code units, as a signed 32-bit integer (what an `Int32Array` gives back). */
const hashOf = (text: string): number => {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
};

/**
 * The candidate keys hashed last (the first `count` of `keys`), the array they came in, and their
 * hashes (see `hashesOf`). The arrays only grow: keys change in number from one check to the next.
 */
const recent = { from: [] as readonly string[], count: 0, keys: [] as string[], hashes: new Int32Array(16) };

/**
 * The hashes of a check's candidate keys, remembered until other keys are hashed: one check looks
 * the same keys up in the check index and in the lists' table, and finds its host keys again
 * among the domain suffixes eth-phishing-detect looks up, so each key is hashed once per check
 * (most lookups miss, and then hashing is most of their cost). The answer, `keys.length` hashes
 * long, is only valid until the next call.
 */
export const hashesOf = (keys: readonly string[]): ArrayLike<number> => {
  const held = recent.keys;
  let same = keys === recent.from && recent.count === keys.length;
  for (let i = 0; same && i < keys.length; i++) same = held[i] === keys[i];
  if (same) return recent.hashes;
  recent.from = keys;
  recent.count = keys.length;
  if (recent.hashes.length < keys.length) recent.hashes = new Int32Array(2 * keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    held[i] = key;
    recent.hashes[i] = hashOf(key);
  }
  return recent.hashes;
};

/** The hash of `key`, taken from the keys hashed last when it is one of them. */
export const recentHashOf = (key: string): number => {
  const held = recent.keys;
  for (let i = 0; i < recent.count; i++) if (held[i] === key) return recent.hashes[i] as number;
  return hashOf(key);
};

/** A slot is four int32s: the key's hash, where its characters start, its length, its value. */
const SLOT = 4;
const MIN_SLOTS = 1 << 10;
const MAX_VALUE = 0x7fffffff;

/** `value`, if a slot can hold it (a non-negative 31-bit integer, so ORing two stays one). */
const holdable = (value: number): number => {
  if (!Number.isInteger(value) || value < 0 || value > MAX_VALUE) throw new RangeError(`${value} is out of range`);
  return value;
};

/** A slot's tag: 1–255 from the hash bits the slot index does not use below 16 million slots; 0 is an empty slot. */
const tagOf = (hash: number): number => 1 + ((hash >>> 24) % 255);

/**
 * Keys to small non-negative integers, for a million keys and more. A check looks up a few keys
 * that are mostly not held, at random places of a table far larger than the CPU caches, so what
 * counts is how many places a lookup reads, and how far apart. A `Map` reads a bucket, an entry
 * and the key's string (each a cache miss at this size), and a filter in front of it one more.
 * Here, open addressing at most half full: a byte per slot (a tag of the key's hash, 2 MB at a
 * million keys, small enough to stay in the CPU's last-level cache) answers most keys that are not
 * held; a held key then reads its slot (hash, value and where its characters are, side by side) and
 * its characters, which live together in one array of UTF-16 code units.
 */
export class KeyTable {
  #tags: Uint8Array;
  #slots: Int32Array;
  #mask: number;
  #chars: Uint16Array;
  #charsUsed = 0;
  #size = 0;

  constructor(expectedKeys = 0, expectedChars = 0) {
    const slots = Math.max(MIN_SLOTS, 2 ** Math.ceil(Math.log2(2 * expectedKeys + 1)));
    this.#tags = new Uint8Array(slots);
    this.#slots = new Int32Array(slots * SLOT);
    this.#mask = slots - 1;
    this.#chars = new Uint16Array(Math.max(expectedChars, 1024));
  }

  get size(): number {
    return this.#size;
  }

  /** `hash`, when given, must be what `hashesOf` or `recentHashOf` gives for `key`. */
  get(key: string, hash = hashOf(key)): number | undefined {
    const index = this.#find(key, hash);
    return this.#tags[index] === 0 ? undefined : this.#slots[index * SLOT + 3];
  }

  set(key: string, value: number): void {
    const held = holdable(value);
    // Found first: finding may grow the table, which replaces `#slots`.
    const at = this.#valueAt(key);
    this.#slots[at] = held;
  }

  /** Adds `bits` to the key's value (0 for a new key), with one lookup. */
  flag(key: string, bits: number): void {
    const added = holdable(bits);
    const at = this.#valueAt(key);
    this.#slots[at] = (this.#slots[at] as number) | added;
  }

  /** Where the key's value is kept; a new key is inserted with value 0. */
  #valueAt(key: string): number {
    const hash = hashOf(key);
    let index = this.#find(key, hash);
    if (this.#tags[index] === 0) {
      if (2 * (this.#size + 1) > this.#tags.length) {
        this.#grow();
        index = this.#find(key, hash);
      }
      this.#insert(index, hash, this.#append(key), key.length);
      this.#size++;
    }
    return index * SLOT + 3;
  }

  /** Every key with its value, in no particular order. */
  *entries(): Generator<[string, number]> {
    for (let index = 0; index < this.#tags.length; index++) {
      if (this.#tags[index] === 0) continue;
      const at = index * SLOT;
      yield [this.#text(this.#slots[at + 1] as number, this.#slots[at + 2] as number), this.#slots[at + 3] as number];
    }
  }

  /** The index of the slot holding `key`, or of the empty slot where it would go. */
  #find(key: string, hash: number): number {
    const tags = this.#tags;
    const tag = tagOf(hash);
    for (let index = hash & this.#mask; ; index = (index + 1) & this.#mask) {
      const held = tags[index] as number;
      if (held === 0) return index;
      if (held === tag && this.#holds(index, key, hash)) return index;
    }
  }

  #holds(index: number, key: string, hash: number): boolean {
    const at = index * SLOT;
    const slots = this.#slots;
    if (slots[at] !== hash || slots[at + 2] !== key.length) return false;
    const chars = this.#chars;
    const start = slots[at + 1] as number;
    for (let i = 0; i < key.length; i++) if (chars[start + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  #insert(index: number, hash: number, start: number, length: number): void {
    const at = index * SLOT;
    this.#tags[index] = tagOf(hash);
    this.#slots[at] = hash;
    this.#slots[at + 1] = start;
    this.#slots[at + 2] = length;
  }

  #append(key: string): number {
    const start = this.#charsUsed;
    if (start + key.length > this.#chars.length) {
      const grown = new Uint16Array(Math.max(2 * this.#chars.length, start + key.length));
      grown.set(this.#chars.subarray(0, start));
      this.#chars = grown;
    }
    for (let i = 0; i < key.length; i++) this.#chars[start + i] = key.charCodeAt(i);
    this.#charsUsed = start + key.length;
    return start;
  }

  #grow(): void {
    const tags = this.#tags;
    const slots = this.#slots;
    this.#tags = new Uint8Array(tags.length * 2);
    this.#slots = new Int32Array(slots.length * 2);
    this.#mask = this.#tags.length - 1;
    for (let from = 0; from < tags.length; from++) {
      if (tags[from] === 0) continue;
      let index = (slots[from * SLOT] as number) & this.#mask;
      while (this.#tags[index] !== 0) index = (index + 1) & this.#mask;
      this.#tags[index] = tags[from] as number;
      this.#slots.set(slots.subarray(from * SLOT, (from + 1) * SLOT), index * SLOT);
    }
  }

  #text(start: number, length: number): string {
    let text = '';
    for (let from = start; from < start + length; from += 4096) {
      text += String.fromCharCode(...this.#chars.subarray(from, Math.min(from + 4096, start + length)));
    }
    return text;
  }
}
