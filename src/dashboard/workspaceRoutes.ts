// The workspace's page (./pages/workspace.ts) and its reader branding, set by owners with a
// multipart form (a logo file beside the colours): same origin, the CSRF token, the owner's role.
import type { ServerResponse } from 'node:http';
import { requireOwner } from '../app/accounts/people.ts';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { brandOf, LOGO_UPLOAD_BYTES, setBranding } from '../app/branding.ts';
import { AppError } from '../domain/errors.ts';
import { queryOf, type Request } from '../http/server.ts';
import type { DashboardRoute, Kit } from './kit.ts';
import { workspacePage } from './pages/workspace.ts';
import { checkCsrf, checkSameOrigin, redirect, sendPage } from './request.ts';
import { readSmallMultipart } from './smallUpload.ts';

export const workspaceRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps, origin } = kit;

  const show = async (
    res: ServerResponse,
    signedIn: SignedIn,
    status: number,
    notice: { error?: string; saved?: boolean } = {},
  ) => {
    const brand = await brandOf(deps.store.db, signedIn.workspace.id);
    const view = {
      accent: brand?.accent ?? null,
      background: brand?.background ?? null,
      logo: brand?.logo ? `/reader/brand/${brand.key}.webp` : null,
    };
    sendPage(res, status, workspacePage(signedIn, view, notice));
  };

  declared.push({
    method: 'get',
    path: '/dashboard/workspace',
    who: 'signed-in',
    body: 'none',
    answers: 'page',
    handler: async (req, res, signedIn) => {
      await show(res, signedIn, 200, { saved: queryOf(req).get('saved') === '1' });
    },
  });

  declared.push({
    method: 'post',
    path: '/dashboard/workspace/branding',
    who: 'signed-in',
    body: 'stream',
    answers: 'page',
    handler: async (req: Request, res, signedIn) => {
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
    },
  });
  return declared;
};
