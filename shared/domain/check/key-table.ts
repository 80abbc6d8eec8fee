/** FNV-1a over the UTF-16 code units. */
const hashOf = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
};

/** A slot is four int32s: the key's hash, where its characters start, its length + 1 (0: empty), its value. */
const SLOT = 4;
const MIN_SLOTS = 1 << 10;
const MAX_VALUE = 0x7fffffff;

/**
 * Keys to small non-negative integers, for a million keys and more. A check looks up a few keys
 * that are mostly not held, at random places of a table far larger than the CPU caches, so what
 * counts is how many places a lookup reads. A `Map` reads a bucket, an entry and the key's string
 * (each a cache miss at this size), and a filter in front of it one more. Here a slot holds the
 * key's hash, value and where its characters are, side by side: a key that is not held is
 * answered from its slot (open addressing, at most half full), a held one from its slot and its
 * characters, which live together in one array of UTF-16 code units.
 */
export class KeyTable {
  #slots: Int32Array;
  #mask: number;
  #chars: Uint16Array;
  #charsUsed = 0;
  #size = 0;

  constructor(expectedKeys = 0, expectedChars = 0) {
    const slots = Math.max(MIN_SLOTS, 2 ** Math.ceil(Math.log2(2 * expectedKeys + 1)));
    this.#slots = new Int32Array(slots * SLOT);
    this.#mask = slots - 1;
    this.#chars = new Uint16Array(Math.max(expectedChars, 1024));
  }

  get size(): number {
    return this.#size;
  }

  get(key: string): number | undefined {
    const at = this.#find(key, hashOf(key));
    const slots = this.#slots;
    return slots[at + 2] === 0 ? undefined : slots[at + 3];
  }

  set(key: string, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > MAX_VALUE) throw new RangeError(`${value} is out of range`);
    const hash = hashOf(key);
    let at = this.#find(key, hash);
    if (this.#slots[at + 2] === 0) {
      if (2 * (this.#size + 1) > this.#slots.length / SLOT) {
        this.#grow();
        at = this.#find(key, hash);
      }
      this.#insert(at, hash, this.#append(key), key.length);
      this.#size++;
    }
    this.#slots[at + 3] = value;
  }

  /** Every key with its value, in no particular order. */
  *entries(): Generator<[string, number]> {
    const slots = this.#slots;
    for (let at = 0; at < slots.length; at += SLOT) {
      const length = (slots[at + 2] as number) - 1;
      if (length < 0) continue;
      const start = slots[at + 1] as number;
      yield [this.#text(start, length), slots[at + 3] as number];
    }
  }

  /** The slot holding `key`, or the empty slot where it would go. */
  #find(key: string, hash: number): number {
    const slots = this.#slots;
    const chars = this.#chars;
    for (let index = hash & this.#mask; ; index = (index + 1) & this.#mask) {
      const at = index * SLOT;
      const stored = slots[at + 2] as number;
      if (stored === 0) return at;
      if (slots[at] !== hash || stored - 1 !== key.length) continue;
      const start = slots[at + 1] as number;
      let same = true;
      for (let i = 0; i < key.length; i++) {
        if (chars[start + i] !== key.charCodeAt(i)) {
          same = false;
          break;
        }
      }
      if (same) return at;
    }
  }

  #insert(at: number, hash: number, start: number, length: number): void {
    this.#slots[at] = hash;
    this.#slots[at + 1] = start;
    this.#slots[at + 2] = length + 1;
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
    const old = this.#slots;
    this.#slots = new Int32Array(old.length * 2);
    this.#mask = (this.#slots.length / SLOT - 1) | 0;
    for (let from = 0; from < old.length; from += SLOT) {
      if (old[from + 2] === 0) continue;
      let index = (old[from] as number) & this.#mask;
      while (this.#slots[index * SLOT + 2] !== 0) index = (index + 1) & this.#mask;
      this.#slots.set(old.subarray(from, from + SLOT), index * SLOT);
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
