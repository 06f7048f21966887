// Names of the blob store's files as the sweep (sweep.ts) lists them. Only names this service
// makes are listed; anything else in the store is left alone. A listed item's `ref` is what the
// store removes it by: a key, or a folder's key prefix (ending in `/`).
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who owns temporaries made by this process: the host name, plus the PID namespace where Linux
 * tells it, so two containers sharing a host name (and a blob directory) never read each
 * other's pids as their own.
 */
const ownerHost = (() => {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
  try {
    const ns = readlinkSync('/proc/self/ns/pid').match(/\d+/)?.[0];
    return ns ? `${host}-ns${ns}` : host;
  } catch {
    return host;
  }
})();

/** This process as the owner of a temporary file. */
export const thisOwner = () => ({ host: ownerHost, pid: process.pid });

export const temporaryName = () => `${ownerHost}.${process.pid}.${randomUUID()}.part`;

export const TEMPORARY =
  /^(.+)\.(\d+)\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.part$/;
export const OLD_TEMPORARY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.part$/;
export const ORIGINAL = /^([0-9a-f]{64})\.pdf$/;

export type Temporary = {
  ref: string;
  size: number;
  mtimeMs: number;
  /** null for a name from before owners were recorded: only its age can condemn it */
  owner: { host: string; pid: number } | null;
};

export type Original = { sha256: string; ref: string; size: number; mtimeMs: number };

export type PageFolder = { versionId: string; ref: string };
