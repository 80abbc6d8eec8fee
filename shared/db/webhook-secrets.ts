import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';

/**
 * Keeps webhook signing secrets so that a copy of the table alone does not reveal them: in AWS
 * each is encrypted with a KMS key (the table holds the ciphertext; decrypting needs the key's
 * grant, which only the webhook functions have); locally with AES-256-GCM under a key kept in a
 * file of the checkout (`.data/webhook-secrets.key`, created on first use, readable by its owner only).
 */
export interface SecretSealer {
  seal(secret: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

/** Binds each ciphertext to its purpose: KMS refuses to decrypt it under any other context. */
const CONTEXT = { purpose: 'webhook-signing-secret' };

export const kmsSealer = (kms: KMSClient, keyId: string): SecretSealer => ({
  async seal(secret) {
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: CONTEXT }),
    );
    return `kms:${Buffer.from(CiphertextBlob as Uint8Array).toString('base64')}`;
  },
  async open(sealed) {
    if (!sealed.startsWith('kms:')) throw new Error('Not a KMS-sealed secret');
    const { Plaintext } = await kms.send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.slice(4), 'base64'), EncryptionContext: CONTEXT }),
    );
    return Buffer.from(Plaintext as Uint8Array).toString('utf8');
  },
});

const loadOrCreateKey = (file: string): Buffer => {
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length !== 32) throw new Error(`${file} does not hold a 256-bit key`);
    return key;
  }
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process of this checkout created it first: use that one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateKey(file);
    throw error;
  }
  chmodSync(file, 0o600);
  return key;
};

export const localSealer = (keyFile: string): SecretSealer => {
  let key: Buffer | undefined;
  const keyOf = () => {
    key ??= loadOrCreateKey(keyFile);
    return key;
  };
  return {
    async seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyOf(), iv);
      const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `local:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
    },
    async open(sealed) {
      const [scheme, iv, tag, data] = sealed.split(':');
      if (scheme !== 'local' || iv === undefined || tag === undefined || data === undefined) {
        throw new Error('Not a locally sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', keyOf(), Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    },
  };
};

/** Opens each sealed secret once per process (a KMS call per delivery would cost more than the delivery). */
export const rememberingSealer = (sealer: SecretSealer, maxEntries = 1000): SecretSealer => {
  const opened = new Map<string, Promise<string>>();
  return {
    seal: (secret) => sealer.seal(secret),
    open(sealed) {
      let secret = opened.get(sealed);
      if (secret === undefined) {
        if (opened.size >= maxEntries) opened.delete(opened.keys().next().value as string);
        secret = sealer.open(sealed);
        opened.set(sealed, secret);
        secret.catch(() => opened.delete(sealed));
      }
      return secret;
    },
  };
};
