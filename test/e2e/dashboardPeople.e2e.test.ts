// Members and Profile in Chromium: axe finds nothing on desktop or phone, and the pages fit a
// phone. The forms' answers (inviting, joining, roles, removal, invitations renewed and revoked,
// reset links, the password change and its throttle, sessions) are
// test/spec/dashboardPeople.spec.test.ts's.
import { describe, expect, it } from 'vitest';
import { axeViolations, DESKTOP, PHONE, postSignIn, useDashboard } from '../support/dashboard.ts';

describe('dashboard members and profile in a browser', () => {
  const d = useDashboard('embedded');

  it('is axe-clean on Members and Profile, desktop and phone', async () => {
    // Pages with all they can hold: another member, a pending invitation, other sessions.
    await (await d.signedIn('yuri@example.com', { role: 'member' })).close();
    await d.invite('zoe@example.com');
    for (const context of [DESKTOP, PHONE]) {
      const email = `xena${context === PHONE ? 'p' : 'd'}@example.com`;
      const page = await d.signedIn(email, { context: { ...context, bypassCSP: true } });
      expect((await postSignIn(d.url, email)).status).toBe(303);
      for (const path of ['/dashboard/members', '/dashboard/profile']) {
        await page.goto(`${d.url}${path}`);
        expect(await axeViolations(page), path).toEqual([]);
        expect(
          await page.evaluate('document.documentElement.scrollWidth <= innerWidth'),
          path,
        ).toBe(true);
      }
    }
  });
});
