// The API keys pages (/dashboard/keys): the list, "Create key" (the key is shown once, on the
// page after the form's redirect, once, never in a URL), "Roll" (a grace for the old
// key) and "Revoke" (a confirmation page first, so both work without JavaScript). Every change
// goes through the API-key use cases with the signed-in person as the actor; a key of another
// workspace is a 404 for every action, as it is unknown to the use cases.
import type { ServerResponse } from 'node:http';
import { popFlash, putFlash } from '../app/accounts/flash.ts';
import type { SignedIn } from '../app/accounts/sessions.ts';
import {
  type ApiKeyListing,
  issueApiKey,
  listApiKeys,
  mayManageKey,
  revokeApiKey,
  rollApiKey,
} from '../app/apiKeys.ts';
import { fingerprintOf, hashApiKey } from '../domain/apiKey.ts';
import { AppError, Forbidden, InvalidInput, NotFound } from '../domain/errors.ts';
import { redirect } from '../http/respond.ts';
import { queryOf, type Request } from '../http/server.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { keyCreatedPage, revokeKeyPage, rollKeyPage } from './pages/keyActions.ts';
import { type KeyDraft, keysPage } from './pages/keys.ts';
import { sendPage } from './request.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The lifetimes "Create key" offers, by the form's value. */
// (Maps: a form's value is looked up, never an inherited property such as `constructor`.)
const LIFETIMES = new Map([
  ['30', 30 * DAY],
  ['90', 90 * DAY],
  ['365', 365 * DAY],
]);
/** How long a rolled key keeps working, by the form's value. */
export const GRACES = new Map([
  ['now', 0],
  ['1h', HOUR],
  ['24h', DAY],
  ['7d', 7 * DAY],
]);

export const keyRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps, context } = kit;
  const keysOf = (signedIn: SignedIn) =>
    listApiKeys(deps.store, { id: signedIn.workspace.id }, deps.clock.now());
  /** One of the person's workspace's keys; any other id, another workspace's too, is a 404. */
  const keyOf = async (signedIn: SignedIn, id: string): Promise<ApiKeyListing> => {
    const key = (await keysOf(signedIn)).find((k) => k.id === id);
    if (!key) throw new NotFound(`No API key with id ${id}`);
    return key;
  };
  /** A key the person may roll or revoke (./pages/keys.ts offers only those). */
  const manageableKey = async (signedIn: SignedIn, id: string) => {
    const key = await keyOf(signedIn, id);
    if (!mayManageKey(signedIn.person, key)) {
      throw new Forbidden('Only owners can roll or revoke a key someone else created');
    }
    return key;
  };
  const actor = (req: Request, signedIn: SignedIn) => signedIn.caller(context(req)).metadata;
  /** A refusal the person can act on (a rule, a wrong value): shown on the page, in words. */
  const isRefusal = (error: unknown): error is AppError =>
    error instanceof AppError && error.status >= 400 && error.status < 500 && error.status !== 404;

  type Shown = Parameters<typeof keyCreatedPage>[1];
  /**
   * A new key is shown on the next page, once: POST, redirect, GET (a reload of the form's answer
   * would otherwise send it again and make a second key). Until that page, the key waits sealed
   * for this session only (src/app/accounts/flash.ts); the page takes it.
   */
  const showOnce = async (res: ServerResponse, signedIn: SignedIn, shown: Shown) => {
    await putFlash(deps.store, signedIn, { newKey: shown });
    redirect(res, '/dashboard/keys/new');
  };

  declared.push(
    signedInRoute.page('/dashboard/keys/new', async (_req, res, signedIn) => {
      const flash = (await popFlash(deps.store, signedIn)) as { newKey?: Shown } | null;
      if (!flash?.newKey) return redirect(res, '/dashboard/keys');
      sendPage(res, 200, keyCreatedPage(signedIn, flash.newKey));
    }),
  );

  declared.push(
    signedInRoute.page('/dashboard/keys', async (req, res, signedIn) => {
      const keys = await keysOf(signedIn);
      const revokedId = queryOf(req).get('revoked');
      const revoked = keys.find((k) => k.id === revokedId && k.status === 'revoked');
      sendPage(res, 200, keysPage(signedIn, keys, { revoked }));
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/keys', async (req, res, signedIn, form) => {
      const draft: KeyDraft = {
        name: (form.get('name') ?? '').trim(),
        expiry: form.get('expiry') ?? '',
        date: form.get('expires_on') ?? '',
      };
      try {
        const issued = await issueApiKey(
          deps.store,
          { workspace: { id: signedIn.workspace.id }, ...keyInput(draft) },
          actor(req, signedIn),
          deps.clock.now(),
        );
        await showOnce(res, signedIn, {
          name: draft.name,
          key: issued.key,
          fingerprint: fingerprintOf(hashApiKey(issued.key)),
          expiresAt: issued.expires_at,
          publicUrl: deps.publicUrl(),
        });
      } catch (error) {
        if (!isRefusal(error)) throw error;
        const page = keysPage(signedIn, await keysOf(signedIn), { error: error.message, draft });
        sendPage(res, error.status, page);
      }
    }),
  );

  /** The page that asks before a key is rolled or revoked (its form posts to the same path). */
  const askFirst = (
    action: 'roll' | 'revoke',
    page: (signedIn: SignedIn, key: ApiKeyListing) => string,
  ) =>
    declared.push(
      signedInRoute.page(`/dashboard/keys/:id/${action}`, async (req, res, signedIn) => {
        const key = await manageableKey(signedIn, req.params.id ?? '');
        sendPage(res, 200, page(signedIn, key));
      }),
    );
  askFirst('roll', rollKeyPage);
  askFirst('revoke', revokeKeyPage);

  declared.push(
    signedInRoute.form('/dashboard/keys/:id/roll', async (req, res, signedIn, form) => {
      const key = await manageableKey(signedIn, req.params.id ?? '');
      const grace = form.get('grace') ?? '';
      try {
        const graceMs = GRACES.get(grace);
        if (graceMs === undefined) throw new InvalidInput('Choose how long the old key works');
        const rolled = await rollApiKey(
          deps.store,
          { keyId: key.id, graceMs, workspaceId: signedIn.workspace.id },
          actor(req, signedIn),
          deps.clock.now(),
        );
        await showOnce(res, signedIn, {
          name: key.label ?? '',
          key: rolled.key,
          fingerprint: fingerprintOf(hashApiKey(rolled.key)),
          expiresAt: rolled.expires_at,
          publicUrl: deps.publicUrl(),
          rolled: { fingerprint: key.fingerprint, validUntil: rolled.old_key_valid_until, grace },
        });
      } catch (error) {
        if (!isRefusal(error)) throw error;
        sendPage(res, error.status, rollKeyPage(signedIn, key, { error: error.message, grace }));
      }
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/keys/:id/revoke', async (req, res, signedIn) => {
      const key = await manageableKey(signedIn, req.params.id ?? '');
      const { id } = await revokeApiKey(
        deps.store,
        { keyId: key.id, workspaceId: signedIn.workspace.id },
        actor(req, signedIn),
        deps.clock.now(),
      );
      // Post/redirect/get: the list says which key was revoked (its id is no secret).
      redirect(res, `/dashboard/keys?revoked=${encodeURIComponent(id)}`);
    }),
  );
  return declared;
};

/** The form's name and expiry as the use case takes them. */
const keyInput = (draft: KeyDraft) => {
  if (!draft.name) throw new InvalidInput('Give the key a name, to recognise it by later');
  const input = { label: draft.name };
  if (draft.expiry === 'none') return input;
  if (draft.expiry === 'date') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(draft.date)) {
      throw new InvalidInput('Choose the day the key expires');
    }
    return { ...input, expires: draft.date };
  }
  const lifetime = LIFETIMES.get(draft.expiry);
  if (lifetime === undefined) throw new InvalidInput('Choose when the key expires');
  return { ...input, expiresInMs: lifetime };
};
