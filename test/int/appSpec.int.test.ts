// The harness itself (test/support/appSpec.ts): requests answered in process by the whole app,
// events read back, the clock moved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectJson, pdf, SMALL_PDF, send } from '../support/apiHelpers.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';

let app: AppUnderTest;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('the in-process harness', () => {
  it("answers an upload with the spec's 201 and shows the events it appended", async () => {
    const reply = await client(app.api, app.key).create(pdf(SMALL_PDF), { title: 'Brochure' });
    expectJson(reply, 201);
    expect(reply.body).toMatchObject({ title: 'Brochure', status: 'pending' });
    const events = await app.newEvents();
    expect(events.map((e) => e.type)).toContain('FlipbookCreated');
    expect(events.at(-1)?.metadata).toMatchObject({ actor: { type: 'api_key' } });
    expect(await app.newEvents()).toEqual([]);
  });

  it('serves every front: health, the OpenAPI document, a reader page, the dashboard', async () => {
    expectJson(await send(`${app.base}/healthz`), 200);
    expectJson(await send(`${app.base}/readyz`), 200);
    expect((await send(`${app.api}/openapi.json`)).status).toBe(200);
    const book = await client(app.api, app.key).create(pdf(SMALL_PDF));
    const reader = await send(`${app.base}/f/${book.body.flipbook_id}`);
    expect(reader.status).toBe(200);
    expect(reader.headers.get('content-type')).toMatch(/^text\/html/);
    const login = await send(`${app.base}/login`);
    expect(login.status).toBe(200);
    expect(login.text).toContain('<form');
    expectJson(await send(`${app.base}/no/such/page`), 404, 'Not found');
  });

  it('follows redirects as fetch does, and leaves them when asked', async () => {
    const manual = await send(`${app.base}/dashboard`, { redirect: 'manual' });
    expect(manual.status).toBe(303);
    const followed = await send(`${app.base}/dashboard`);
    expect(followed.status).toBe(200);
  });
});
