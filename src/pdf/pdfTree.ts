// PDF's trees, walked alike within a depth ceiling and with loops cut (a hostile file can make
// any of them): the page tree (ISO 32000 §7.7.3.2: /Pages nodes whose /Kids lead down to the
// pages) and the two search trees (§7.9.6 name trees, §7.9.7 number trees: a root whose /Kids
// lead down to leaves holding [key, value, key, value, ...] in /Names or /Nums).
import {
  arrayAt,
  type Dict,
  dictAt,
  isReference,
  type Json,
  nameOf,
  type Objects,
} from './qpdfJson.ts';

const MAX_TREE_DEPTH = 64;

/**
 * Each node under `root` in order, each once: `visit` says whether to go down to its /Kids;
 * `full` says when the caller has had enough, and stops the walk.
 */
const walkNodes = (
  objects: Objects,
  root: Json | undefined,
  visit: (dict: Dict, node: Json | undefined) => boolean,
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
    if (!dict || !visit(dict, node)) return;
    for (const kid of arrayAt(objects, dict['/Kids']) ?? []) walk(kid, depth + 1);
  };
  walk(root, 0);
};

/**
 * Each [key, value] pair of the search tree under `root`, in order, as stored (references
 * unresolved); `full` says when the caller has had enough (its own ceiling), and stops the walk.
 */
export const walkTree = (
  objects: Objects,
  root: Json | undefined,
  leaves: '/Names' | '/Nums',
  pair: (key: Json | undefined, value: Json | undefined) => void,
  full: () => boolean,
) =>
  walkNodes(
    objects,
    root,
    (dict) => {
      const pairs = arrayAt(objects, dict[leaves]) ?? [];
      for (let i = 0; i + 1 < pairs.length && !full(); i += 2) pair(pairs[i], pairs[i + 1]);
      return true;
    },
    full,
  );

/**
 * The pages in order, at most `max`, from the page tree under `root` (the catalog's /Pages): a
 * node with /Kids is walked, anything else is a page. Inherited attributes stay with the parents
 * (pageLinks.ts follows /Parent).
 */
export const pageTree = (objects: Objects, root: Json | undefined, max: number) => {
  const pages: { reference?: string; page: Dict }[] = [];
  walkNodes(
    objects,
    root,
    (dict, node) => {
      if (arrayAt(objects, dict['/Kids']) && nameOf(objects, dict['/Type']) !== 'Page') return true;
      pages.push({ reference: isReference(node) ? node : undefined, page: dict });
      return false;
    },
    () => pages.length >= max,
  );
  return pages;
};
