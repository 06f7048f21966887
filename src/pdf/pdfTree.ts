// PDF's two search trees (ISO 32000 §7.9.6 name trees, §7.9.7 number trees): a root whose /Kids
// lead down to leaves holding [key, value, key, value, ...] in /Names or /Nums. Both are walked
// alike, within a depth ceiling and with loops cut (a hostile file can make either).
import { arrayAt, dictAt, isReference, type Json, type Objects } from './qpdfJson.ts';

const MAX_TREE_DEPTH = 64;

/**
 * Each [key, value] pair of the tree under `root`, in order, as stored (references unresolved);
 * `full` says when the caller has had enough (its own ceiling), and stops the walk.
 */
export const walkTree = (
  objects: Objects,
  root: Json | undefined,
  leaves: '/Names' | '/Nums',
  pair: (key: Json | undefined, value: Json | undefined) => void,
  full: () => boolean,
) => {
  const seen = new Set<string>();
  const walk = (node: Json | undefined, depth: number) => {
    if (depth > MAX_TREE_DEPTH || full()) return;
    if (isReference(node)) {
      if (seen.has(node)) return;
      seen.add(node);
    }
    const dict = dictAt(objects, node);
    if (!dict) return;
    const pairs = arrayAt(objects, dict[leaves]) ?? [];
    for (let i = 0; i + 1 < pairs.length && !full(); i += 2) pair(pairs[i], pairs[i + 1]);
    for (const kid of arrayAt(objects, dict['/Kids']) ?? []) walk(kid, depth + 1);
  };
  walk(root, 0);
};
