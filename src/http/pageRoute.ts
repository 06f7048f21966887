// One route of a front for people (the reader; the dashboard's are next), declared as the API's
// endpoints are (./endpoint.ts): its method and path, who may call it, what body it takes, what
// it answers (which decides how its failures are answered), and its handler. A front builds its
// list and mounts it once (`mountPageRoutes`) with one wrapper per kind of answer, so every route
// of a kind fails the same way.
import type { Handler, Routes } from './server.ts';

export type PageRoute = {
  method: 'get' | 'post';
  path: string;
  /** `anyone`: what a request may see is the handler's to decide (a book's visibility, a grant) */
  who: 'anyone';
  /** `form`: a small urlencoded form the handler reads (./formBody.ts); `none`: no body read */
  body: 'none' | 'form';
  /**
   * `page`: a page for people (a failure of the service is a page in words for a browser);
   * `data`: JSON, images, assets (failures are the JSON every route gives)
   */
  answers: 'page' | 'data';
  handler: Handler;
};

/** What makes a handler of each kind answer its failures the way its kind does. */
export type Wrappers = Record<PageRoute['answers'], (handler: Handler) => Handler>;

export const mountPageRoutes = (routes: Routes, declared: PageRoute[], wrappers: Wrappers) => {
  for (const route of declared) {
    routes[route.method](route.path, wrappers[route.answers](route.handler));
  }
};
