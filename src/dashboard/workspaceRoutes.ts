// The workspace's page (./pages/workspace.ts) and its reader branding, set by owners with a
// multipart form (a logo file beside the colours): same origin, the CSRF token, the owner's role.
// Erasing a reader (owners too): the address, a confirmation page carrying it in its form (never
// in a URL), then eraseReader, and the count in words after the redirect.
import type { ServerResponse } from 'node:http';
import { popFlash, putFlash } from '../app/accounts/flash.ts';
import { requireOwner } from '../app/accounts/people.ts';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { brandOf, LOGO_UPLOAD_BYTES, setBranding } from '../app/branding.ts';
import { eraseReader } from '../app/readerFigures.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { readerEmail } from '../domain/readerEmail.ts';
import { redirect } from '../http/respond.ts';
import { checkSameOrigin } from '../http/sameOrigin.ts';
import { queryOf, type Request } from '../http/server.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { confirmPage } from './pages/confirm.ts';
import { ERASE_ACTION, type ErasureState } from './pages/readerErasure.ts';
import { workspacePage } from './pages/workspace.ts';
import { checkCsrf, sendPage } from './request.ts';
import { readSmallMultipart } from './smallUpload.ts';

export const workspaceRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps, origin } = kit;

  const show = async (
    res: ServerResponse,
    signedIn: SignedIn,
    status: number,
    notice: { error?: string; saved?: boolean } = {},
    erasure: ErasureState = {},
  ) => {
    const brand = await brandOf(deps.store.db, signedIn.workspace.id);
    const view = {
      accent: brand?.accent ?? null,
      background: brand?.background ?? null,
      logo: brand?.logo ? `/reader/brand/${brand.key}.webp` : null,
    };
    sendPage(res, status, workspacePage(signedIn, view, notice, erasure));
  };

  declared.push(
    signedInRoute.page('/dashboard/workspace', async (req, res, signedIn) => {
      const query = queryOf(req);
      const flash = query.get('erased') === '1' ? await popFlash(deps.store, signedIn) : null;
      const erased = (flash as { erased?: unknown } | null)?.erased;
      await show(
        res,
        signedIn,
        200,
        { saved: query.get('saved') === '1' },
        typeof erased === 'number' ? { erased } : {},
      );
    }),
  );

  declared.push(
    signedInRoute.upload('/dashboard/workspace/branding', async (req: Request, res, signedIn) => {
      checkSameOrigin(req, origin());
      const { fields, file } = await readSmallMultipart(req, 'logo', LOGO_UPLOAD_BYTES);
      checkCsrf(fields.get('_csrf') ?? undefined, signedIn.csrfToken);
      requireOwner(signedIn.person);
      const colour = (name: string) =>
        fields.get(`${name}_choice`) === 'brand' ? (fields.get(name) ?? '') : null;
      try {
        await setBranding(
          deps.store,
          signedIn.workspace.id,
          {
            accent: colour('accent'),
            background: colour('background'),
            ...(file ? { logo: file } : fields.get('remove_logo') === 'true' ? { logo: null } : {}),
          },
          signedIn.caller(kit.context(req)).metadata,
          deps.clock.now(),
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        return show(res, signedIn, 400, { error: error.message });
      }
      redirect(res, '/dashboard/workspace?saved=1');
    }),
  );
  declared.push(
    signedInRoute.form(ERASE_ACTION, async (req, res, signedIn, form) => {
      requireOwner(signedIn.person);
      const email = (form.get('email') ?? '').slice(0, 254);
      try {
        readerEmail(email);
      } catch (error) {
        if (!(error instanceof InvalidInput)) throw error;
        return show(res, signedIn, 400, {}, { email, error: error.message });
      }
      if (form.get('confirm') !== 'yes') {
        return sendPage(
          res,
          200,
          confirmPage(signedIn, {
            title: 'Erase a reader',
            question: `Erase the reader ${email}?`,
            explanation:
              'Their address goes from every link’s readers, allow lists, mails not yet sent and webhook payloads kept, and cannot be brought back. Their reading figures stay, without a name.',
            action: ERASE_ACTION,
            button: 'Erase the reader',
            back: '/dashboard/workspace#privacy',
            fields: { email, confirm: 'yes' },
          }),
        );
      }
      const { erased } = await eraseReader(deps, signedIn.caller(kit.context(req)), email);
      await putFlash(deps.store, signedIn, { erased });
      redirect(res, '/dashboard/workspace?erased=1#privacy');
    }),
  );
  return declared;
};
