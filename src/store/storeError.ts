/** A problem with the store itself (cannot start, cannot connect), as opposed to a broken rule. */
export class StoreError extends Error {
  override name = 'StoreError';
}
