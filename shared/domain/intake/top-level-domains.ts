import { installedSuffixes } from '../check/index.ts';

const CLOSE = ')';
const OPEN = '(';

/**
 * The top-level labels of the Public Suffix List's compact rules (`<flag><label>(children)`,
 * comma-separated): only the depth-0 entries are read, so a label is a TLD exactly when the
 * list has a rule for it. Read once, on first use.
 */
const decode = (rules: string): Set<string> => {
  const labels = new Set<string>();
  let depth = 0;
  let start = 0;
  const take = (end: number) => {
    if (end > start + 1) labels.add(rules.slice(start + 1, end));
  };
  for (let i = 0; i < rules.length; i++) {
    const char = rules[i];
    if (char === OPEN) {
      if (depth === 0) take(i);
      depth++;
    } else if (char === CLOSE) {
      depth--;
      if (depth === 0) start = i + 1;
    } else if (char === ',' && depth === 0) {
      if (rules[i - 1] !== CLOSE) take(i);
      start = i + 1;
    }
  }
  if (depth === 0 && rules[rules.length - 1] !== CLOSE) take(rules.length);
  return labels;
};

/** The labels of the installed suffix data, decoded again only when other data is installed. */
let decoded: { rules: string; labels: Set<string> } | undefined;

/** Whether `label` (lower case, Unicode or punycode) is a top-level domain the Public Suffix List knows. */
export const isTopLevelDomain = (label: string): boolean => {
  const { rules } = installedSuffixes();
  if (decoded?.rules !== rules) decoded = { rules, labels: decode(rules) };
  return decoded.labels.has(label);
};
