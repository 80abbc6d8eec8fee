import type { AssetType } from '../asset-types.ts';

/**
 * The key under which an entry (an allowlisted asset or a blocked threat) is stored in the
 * check index, and under which checked content is looked up. `undefined` when the content
 * has no key of its own (it cannot be parsed).
 */
export const entryKeyOf = (content: string, type?: AssetType): string | undefined => {
  const text = content.trim();
  if (text === '') return undefined;
  if (type === 'ADDRESS' && /^0x[0-9a-fA-F]{40}$/.test(text)) return text.toLowerCase();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`);
    const host = url.hostname.replace(/\.+$/, '').replace(/^www\./, '');
    const path = url.pathname.replace(/\/+$/, '');
    return `${host}${path}`;
  } catch {
    return text.toLowerCase();
  }
};
